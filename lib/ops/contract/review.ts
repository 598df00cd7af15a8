import type { QueueAction } from '../queue.js';
import { decisionArgs, id, type ArgContract, type CommandContract } from './types.js';

// The contracts of the commands that end, reopen, hand over and schedule tasks.

export const accept = {
  name: 'accept',
  describe: 'Squash-merge the task into its target (the parent task branch, or the branch it came from)',
  args: [
    id('the task to accept'),
    {
      name: 'yes',
      alias: 'y',
      type: 'boolean',
      describe: 'do not ask for confirmation',
      cliOnly: 'the tool call is the consent (lazy accept --yes)',
    },
    ...decisionArgs('before merging'),
  ],
  tool: { description: 'Squash-merge the task into its target; the call is the consent (lazy accept --yes --json).' },
} as const satisfies CommandContract;

/** close and reject share everything but their intent (and a word of the tool's). */
const abandon = (action: 'close' | 'reject', describe: string, tool: { description: string; deleteBranch?: string }) =>
  ({
    name: action,
    describe,
    args: [
      id(`the task to ${action}`),
      // -m as close's other flags are, but optional everywhere: an abandoned task needs no reason.
      {
        name: 'message',
        alias: 'm',
        type: 'string',
        describe: 'the reason',
        tool: { name: 'reason', description: 'why' },
      },
      {
        name: 'delete-branch',
        type: 'boolean',
        describe: 'delete the task branch even if it holds commits merged nowhere',
        tool: tool.deleteBranch === undefined ? undefined : { description: tool.deleteBranch },
      },
    ],
    tool: { description: tool.description },
  }) as const satisfies CommandContract;

export const close = abandon('close', 'Close a task that will not be done (→ abandoned)', {
  description: 'Close a task that will not be done (→ abandoned) (lazy close --json).',
});

export const reject = abandon('reject', 'Reject the work of a task (→ abandoned)', {
  description: 'Reject the work of a task, which becomes abandoned (lazy reject --json).',
  deleteBranch: 'delete the task branch even if it holds unmerged commits',
});

export const reopen = {
  name: 'reopen',
  describe: 'Reopen a complete or abandoned task',
  args: [
    id('the task to reopen'),
    {
      name: 'reason',
      alias: 'm',
      type: 'string',
      describe: 'why (required for a complete task)',
      tool: { description: 'why' },
    },
  ],
  tool: {
    description: 'Reopen a complete or abandoned task (a reason is required for a complete one) (lazy reopen --json).',
  },
} as const satisfies CommandContract;

export const submit = {
  name: 'submit',
  describe:
    'Hand the reviewed work to a forge: push lazy/<id> to the remote, mark the task submitted, run forge.pr_command',
  args: [
    id('the task to submit'),
    { name: 'remote', positional: true, type: 'string', describe: 'the git remote (default: origin, or the only one)' },
  ],
  tool: {
    description:
      'Hand the reviewed work to a forge: push lazy/<id>, mark the task submitted, run forge.pr_command (lazy submit --json); a failed PR command or push is a tool error carrying the same document.',
  },
} as const satisfies CommandContract;

const PRIORITY = {
  name: 'priority',
  // A string on the CLI, so parsePriority names what was typed (`--priority abc`), where yargs would pass NaN.
  type: 'string',
  describe: 'an integer: higher runs first (default 0)',
  tool: { type: 'number' },
} as const satisfies ArgContract;

/** queue, unqueue, pause and unpause share everything but the action (and queue's --priority). */
const schedule = (action: QueueAction, describe: string, tool: string) =>
  ({
    name: action,
    describe,
    args: [
      {
        name: 'ids',
        positional: true,
        required: true,
        type: 'string',
        array: true,
        describe: 'task ids or unique prefixes',
        tool: { description: 'task ids or unique prefixes (4+ characters)' },
      },
      ...(action === 'queue' ? [PRIORITY] : []),
    ],
    // The operation reconciles after its writes, so a pause lands before a crash it holds is resumed.
    reconcile: false,
    tool: { description: tool },
  }) as const satisfies CommandContract;

export const queue = schedule(
  'queue',
  'Queue backlog or interrupted tasks for any machine running lazy work (--priority N: higher first)',
  'Queue backlog or interrupted tasks for lazy work (priority: higher first) (lazy queue --json).',
);
export const unqueue = schedule(
  'unqueue',
  'Take queued tasks back from the fleet',
  'Take tasks out of the queue (lazy unqueue --json).',
);
export const pause = schedule(
  'pause',
  'Hold queued or interrupted tasks: no worker picks them and nothing auto-resumes them',
  'Pause queued tasks: no worker picks them until unpaused (lazy pause --json).',
);
export const unpause = schedule(
  'unpause',
  'Release paused tasks (a crash this machine would have resumed is resumed)',
  'Unpause tasks (lazy unpause --json).',
);

export const run = {
  name: 'run',
  describe: "Run a command in the task's worktree and record it on the task (lazy run <id> -- <command> [args])",
  args: [
    id('the task whose worktree to run in'),
    {
      name: 'command',
      positional: true,
      type: 'string',
      array: true,
      // Optional to yargs, which leaves the words after -- out of positionals: the handler takes them (bin/call.ts).
      describe: "the command and its arguments, after -- (no shell: sh -c '...' for one)",
      tool: { description: 'the command and its arguments (argv, run without a shell)', required: true },
    },
  ],
  tool: {
    description:
      "Run a command (argv, no shell) in the task's worktree and record it on the task as a person's command turn: " +
      'its exit code, duration and the end of its output (lazy run --json).',
  },
} as const satisfies CommandContract;
