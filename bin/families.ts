import { CONTRACTS as C, type CliArgs } from '../lib/ops/contract/index.js';
import { commandOf } from './contract.js';
import { run, type GlobalArgs } from './run.js';
import { renderClosed, renderScheduled } from '../lib/output/tasks.js';
import { renderPull, renderPush, renderSync } from '../lib/output/sync.js';
import type { QueueAction } from '../lib/ops/queue.js';

// Commands that share all but a word or two: each family's definition, which its bin/commands/ files instantiate
// (a command file imports no other, so the commands stay leaves of bin/'s import graph).

/** queue, unqueue, pause and unpause share everything but the action. */
export function queueCommand(action: QueueAction) {
  return {
    ...commandOf(C[action]),
    handler: (a: GlobalArgs & CliArgs<(typeof C)[typeof action]>) =>
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
        { reconcile: C[action].reconcile }, // the op reconciles after its writes (its contract says so)
      ),
  };
}

/** pull, push and sync take the same argument. */
const RENDER = { pull: renderPull, push: renderPush, sync: renderSync } as const;

export function syncCommand(op: keyof typeof RENDER) {
  return {
    ...commandOf(C[op]),
    handler: (a: GlobalArgs & CliArgs<(typeof C)[typeof op]>) => {
      let exit = (_: unknown) => 0;
      return run(
        a,
        async (app) => {
          const ops = await import('../lib/ops/sync.js');
          exit = ops.exitOf[op] as (v: unknown) => number;
          return { pull: ops.pullOp, push: ops.pushOp, sync: ops.syncOp }[op](app, a.remote);
        },
        RENDER[op] as (v: unknown) => string,
        { exit: (v) => exit(v) },
      );
    },
  };
}

/** close and reject share everything but their intent. */
export function abandonCommand(action: 'close' | 'reject') {
  return {
    ...commandOf(C[action]),
    handler: (a: GlobalArgs & CliArgs<(typeof C)[typeof action]>) =>
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
