import { CONTRACTS as C, type CliArgs } from '../../lib/ops/contract/index.js';
import { commandOf } from '../contract.js';
import { run, type GlobalArgs } from '../run.js';
import { renderScheduled } from '../../lib/output/tasks.js';
import type { QueueAction } from '../../lib/ops/queue.js';

// queue, unqueue, pause and unpause share everything but the action; the other three reuse this module.
export function queueCommand(action: QueueAction) {
  return {
    ...commandOf(C[action]),
    handler: (a: GlobalArgs & CliArgs<(typeof C)[typeof action]>) =>
      run(
        a,
        async (app) => {
          const { scheduleTasks, parsePriority } = await import('../../lib/ops/queue.js');
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

export const { command, describe, builder, handler } = queueCommand('queue');
