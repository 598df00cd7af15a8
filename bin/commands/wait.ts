import type { Argv } from 'yargs';
import { run, followWriter, type GlobalArgs, type FollowArgs } from '../run.js';
import { renderWaited } from '../../lib/output/turns.js';

export const command = 'wait <id>';
export const describe = 'Block until the task leaves working; exit 0 when it is blocked or in conflict';
export const builder = (y: Argv) =>
  y
    .positional('id', { type: 'string', describe: 'the task to wait for' })
    .option('timeout', { type: 'number', describe: 'give up after S seconds (exit 5)' })
    .option('follow', { alias: 'f', type: 'boolean', describe: "stream the turn's output, readable, while waiting" });

export const handler = (a: GlobalArgs & FollowArgs & { id: string; timeout?: number }) =>
  run(
    a,
    async (app) => {
      if (a.follow) {
        const { followAndWait } = await import('../../lib/ops/follow.js');
        const stop = () => !app.io.outOpen();
        return {
          task: await followAndWait(app, String(a.id), await followWriter(app, a), { stop, timeoutS: a.timeout }),
        };
      }
      const { waitTask } = await import('../../lib/ops/wait.js');
      return waitTask(app, String(a.id), a.timeout);
    },
    (v) => renderWaited(v.task),
  );
