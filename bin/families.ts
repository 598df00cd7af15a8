import type { Argv } from 'yargs';
import { run, type GlobalArgs } from './run.js';
import { renderClosed, renderScheduled } from '../lib/output/tasks.js';
import { renderPull, renderPush, renderSync } from '../lib/output/sync.js';
import type { QueueAction } from '../lib/ops/queue.js';
import { SORTS } from '../lib/ops/sorts.js';

// Commands that share all but a word or two: each family's definition, which its bin/commands/ files instantiate
// (a command file imports no other, so the commands stay leaves of bin/'s import graph).

/** --tag, --search, --sort, --limit: list's and inbox's shared filters. */
export const filterOptions = (y: Argv) =>
  y
    .option('tag', {
      alias: 't',
      type: 'string',
      array: true,
      describe: 'only tasks with this tag (repeat: all must match)',
    })
    .option('search', { type: 'string', describe: 'only tasks whose goal, prompt or criteria contain TEXT (any case)' })
    .option('sort', { choices: SORTS, describe: 'order: created (oldest first), updated (newest first), priority' })
    .option('limit', { alias: 'n', type: 'number', describe: 'print at most N tasks' });

/** queue, unqueue, pause and unpause share everything but the action. */
export function queueCommand(action: QueueAction, describe: string) {
  return {
    command: `${action} <ids..>`,
    describe,
    builder: (y: Argv) => {
      const ids = y.positional('ids', { type: 'string', array: true, describe: 'task ids or unique prefixes' });
      return action === 'queue'
        ? ids.option('priority', { type: 'string', describe: 'an integer: higher runs first (default 0)' })
        : ids;
    },
    handler: (a: GlobalArgs & { ids: string[]; priority?: unknown }) =>
      run(
        a,
        async (app) => {
          const { scheduleTasks, parsePriority } = await import('../lib/ops/queue.js');
          const tasks = await scheduleTasks(app, action, a.ids.map(String), { priority: parsePriority(a.priority) });
          return tasks.map((task) => ({ task }));
        },
        (rows) =>
          renderScheduled(
            action,
            rows.map((r) => r.task),
          ),
        undefined,
        // The op reconciles after its writes, so a pause lands before a crash it holds is resumed.
        { reconcile: false },
      ),
  };
}

/** pull, push and sync take the same argument. */
const SYNC_OPS = {
  pull: {
    describe: 'Fetch refs/lazy/* and merge it: fast-forward, or a deterministic merge of both histories',
    render: renderPull,
  },
  push: { describe: 'Push refs/lazy/* (fast-forward only; never forced)', render: renderPush },
  sync: { describe: 'Pull, then push; retried while someone else pushes meanwhile', render: renderSync },
} as const;

export function syncCommand(op: keyof typeof SYNC_OPS) {
  return {
    command: `${op} [remote]`,
    describe: SYNC_OPS[op].describe,
    builder: (y: Argv) =>
      y.positional('remote', { type: 'string', describe: 'git remote (default: origin, or the only one)' }),
    handler: (a: GlobalArgs & { remote?: string }) => {
      let exit = (_: unknown) => 0;
      return run(
        a,
        async (app) => {
          const ops = await import('../lib/ops/sync.js');
          exit = ops.exitOf[op] as (v: unknown) => number;
          return { pull: ops.pullOp, push: ops.pushOp, sync: ops.syncOp }[op](app, a.remote);
        },
        SYNC_OPS[op].render as (v: unknown) => string,
        (v) => exit(v),
      );
    },
  };
}

/** close and reject share everything but their intent. */
export function abandonCommand(action: 'close' | 'reject', describe: string) {
  return {
    command: `${action} <id>`,
    describe,
    builder: (y: Argv) =>
      y
        .positional('id', { type: 'string', describe: `the task to ${action}` })
        .option('message', { alias: 'm', type: 'string', describe: 'the reason' })
        .option('delete-branch', {
          type: 'boolean',
          describe: 'delete the task branch even if it holds commits merged nowhere',
        }),
    handler: (a: GlobalArgs & { id: string; message?: string; deleteBranch?: boolean }) =>
      run(
        a,
        async (app) => {
          const { closeTask } = await import('../lib/ops/close.js');
          return closeTask(app, String(a.id), action, { reason: a.message, deleteBranch: a.deleteBranch });
        },
        renderClosed,
      ),
  };
}
