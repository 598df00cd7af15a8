import type { Argv } from 'yargs';
import { run, runBare, type GlobalArgs } from '../run.js';
import { bareValue, renderConfig } from '../../lib/output/config.js';

export const command = 'config <action> [key] [value]';
export const describe =
  'Read or change settings: config set|unset|get KEY [VALUE] [--local|--user], config list [--show-origin], config trust';
export const builder = (y: Argv) =>
  y
    .positional('action', {
      choices: ['set', 'unset', 'get', 'list', 'trust'] as const,
      describe: 'what to do with the settings',
    })
    .positional('key', {
      type: 'string',
      describe:
        'agent, agents.<name>.command|adapter|args|permission_mode|interactive, protected, worktree_dir, ' +
        'watchdog_ms, stop_grace_ms, retry_base_ms, retry_transient_max, retry_unreachable_max, crash_window_ms, ' +
        'usage_limit_recheck_ms, usage_limit_max_wait_ms, mcp, forge.pr_command',
    })
    .positional('value', { type: 'string', describe: 'the value to set (config set only)' })
    .option('local', { type: 'boolean', describe: 'this clone only (.git/lazy/config.yaml, never pushed)' })
    .option('user', { type: 'boolean', describe: 'every repository of yours ($XDG_CONFIG_HOME/lazy/config.yaml)' })
    .option('show-origin', { type: 'boolean', describe: 'list: where each value comes from, shadowed ones too' })
    .conflicts('local', 'user');

interface Args extends GlobalArgs {
  action: 'set' | 'unset' | 'get' | 'list' | 'trust';
  key?: string;
  value?: string;
  local?: boolean;
  user?: boolean;
  showOrigin?: boolean;
}

type Result = Awaited<ReturnType<typeof import('../../lib/ops/config.js').configGet>>;
const isGet = (a: Args, v: Result | Result[]): v is Result => a.action === 'get' && !Array.isArray(v);

const userWrite = (a: Args) =>
  a.user && a.key && (a.action === 'unset' || (a.action === 'set' && a.value !== undefined));

export const handler = (a: Args) =>
  userWrite(a)
    ? runBare(a, async () => (await import('../../lib/ops/config.js')).configSetUser(a.key!, a.value), renderConfig)
    : run(
        a,
        async (app) => (await import('../../lib/ops/config.js')).configCommand(app, a),
        // get prints the bare value, and nothing when it is unset (exit 1), as git config does.
        (v) => (isGet(a, v) ? bareValue(v.value) : renderConfig(v)),
        { exit: (v) => (isGet(a, v) && v.value === null ? 1 : 0) },
      );
