import type { Argv } from 'yargs';
import { run, type GlobalArgs } from '../run.js';
import { renderConfig } from '../../lib/output/turns.js';

export const command = 'config <action> [key] [value]';
export const describe =
  'Read or change settings: config set|unset|get KEY [VALUE] [--local], config list, config trust';
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
    .option('local', { type: 'boolean', describe: 'this clone only (.git/lazy/config.yaml, never pushed)' });

interface Args extends GlobalArgs {
  action: 'set' | 'unset' | 'get' | 'list' | 'trust';
  key?: string;
  value?: string;
  local?: boolean;
}

export const handler = (a: Args) =>
  run(
    a,
    async (app) => {
      const ops = await import('../../lib/ops/config.js');
      const { usageError } = await import('../../lib/core/errors.js');
      if (a.action === 'list') return ops.configList(app);
      if (a.action === 'trust') return ops.configTrust(app);
      if (!a.key) throw usageError(`config ${a.action} needs a key`);
      if (a.action === 'get') return ops.configGet(app, a.key);
      if (a.action === 'set' && a.value === undefined) throw usageError(`config set ${a.key} needs a value`);
      return ops.configSet(app, a.key, a.action === 'set' ? String(a.value) : undefined, !!a.local);
    },
    renderConfig,
  );
