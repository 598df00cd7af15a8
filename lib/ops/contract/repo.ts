import { id, type ArgContract, type CommandContract } from './types.js';

// The contracts of the commands that read a task's history, set up and check the repository, and move its
// state between clones and machines: none has a builder tool (they are a person's, or a worker's).

export const init = {
  name: 'init',
  describe: 'Prepare the repository for lazy (safe to rerun)',
  args: [
    {
      name: 'remote',
      type: 'string',
      describe: 'also add refspecs so plain git fetch/push carry refs/lazy/* and the task branches',
    },
  ],
} as const satisfies CommandContract;

export const log = {
  name: 'log',
  describe: "The task's history, one line per commit",
  args: [id('the task whose history to print')],
} as const satisfies CommandContract;

export const diff = {
  name: 'diff',
  describe: 'The task branch against its base',
  args: [id('the task whose branch to diff'), { name: 'stat', type: 'boolean', describe: 'a diffstat only' }],
} as const satisfies CommandContract;

export const pair = {
  name: 'pair',
  describe: "Work interactively in the task's worktree (its agent's interactive command, or $SHELL)",
  args: [id('the task to work on')],
} as const satisfies CommandContract;

export const watch = {
  name: 'watch',
  describe: 'A live view of active tasks and their running turns (one snapshot when not on a terminal)',
  args: [{ name: 'once', type: 'boolean', describe: 'print one snapshot and exit' }],
} as const satisfies CommandContract;

const REMOTE = {
  name: 'remote',
  positional: true,
  type: 'string',
  describe: 'git remote (default: origin, or the only one)',
} as const satisfies ArgContract;

/** pull, push and sync take the same argument. */
const syncing = (name: 'pull' | 'push' | 'sync', describe: string) =>
  ({
    name,
    describe,
    args: [REMOTE],
  }) as const satisfies CommandContract;

export const pull = syncing(
  'pull',
  'Fetch refs/lazy/* and merge it: fast-forward, or a deterministic merge of both histories',
);
export const push = syncing('push', 'Push refs/lazy/* (fast-forward only; never forced)');
export const sync = syncing('sync', 'Pull, then push; retried while someone else pushes meanwhile');

export const archive = {
  name: 'archive',
  describe:
    'Move finished tasks whose last change is older than archive.after_days (30) out of refs/lazy/tasks/* into the archive refs',
  args: [
    {
      name: 'older-than',
      type: 'number',
      describe: 'archive complete and abandoned tasks last changed more than this many days ago',
    },
  ],
} as const satisfies CommandContract;

export const work = {
  name: 'work',
  describe: 'Fleet worker: claim queued tasks on the remote, run them, push their outcomes; until stopped',
  args: [
    REMOTE,
    { name: 'agent', type: 'string', describe: 'the agent to run the turns with' },
    { name: 'max', type: 'number', default: 1, describe: 'turns to run at once on this machine' },
    { name: 'drain', type: 'boolean', describe: 'exit 0 once nothing is left to pick and nothing runs' },
    { name: 'now', type: 'boolean', describe: 'on Ctrl-C or SIGTERM, stop the running turns as lazy stop does' },
  ],
} as const satisfies CommandContract;

export const config = {
  name: 'config',
  describe:
    'Read or change settings: config set|unset|get KEY [VALUE] [--local|--user], config list [--show-origin], config trust',
  args: [
    {
      name: 'action',
      positional: true,
      required: true,
      choices: ['set', 'unset', 'get', 'list', 'trust'],
      describe: 'what to do with the settings',
    },
    {
      name: 'key',
      positional: true,
      type: 'string',
      describe:
        'agent, agents.<name>.command|adapter|args|permission_mode|interactive|model, protected, worktree_dir, ' +
        'watchdog_ms, stop_grace_ms, retry_base_ms, retry_transient_max, retry_unreachable_max, crash_window_ms, ' +
        'usage_limit_recheck_ms, usage_limit_max_wait_ms, mcp, forge.pr_command, ' +
        'pricing.<model>.input|output|cache_read|cache_write',
    },
    { name: 'value', positional: true, type: 'string', describe: 'the value to set (config set only)' },
    {
      name: 'local',
      type: 'boolean',
      conflicts: 'user',
      describe: 'this clone only (.git/lazy/config.yaml, never pushed)',
    },
    { name: 'user', type: 'boolean', describe: 'every repository of yours ($XDG_CONFIG_HOME/lazy/config.yaml)' },
    { name: 'show-origin', type: 'boolean', describe: 'list: where each value comes from, shadowed ones too' },
  ],
} as const satisfies CommandContract;

export const doctor = {
  name: 'doctor',
  describe: 'Validate every task and report leftovers; exit 0 only when healthy',
  args: [{ name: 'fix', type: 'boolean', describe: 'remove leftovers that are verifiably dead' }],
} as const satisfies CommandContract;
