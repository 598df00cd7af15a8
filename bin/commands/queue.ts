import type { Argv } from 'yargs';
import { run, type GlobalArgs } from '../run.js';
import { renderScheduled } from '../../lib/output/tasks.js';
import type { QueueAction } from '../../lib/ops/queue.js';

// queue, unqueue, pause and unpause share everything but the action; the other three reuse this module.
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
          const { scheduleTasks, parsePriority } = await import('../../lib/ops/queue.js');
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

export const { command, describe, builder, handler } = queueCommand(
  'queue',
  'Queue backlog or interrupted tasks for any machine running lazy work (--priority N: higher first)',
);
