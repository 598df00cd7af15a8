import { CONTRACTS as C, type CliArgs } from '../../lib/ops/contract/index.js';
import { commandOf } from '../contract.js';
import { run, followWriter, type GlobalArgs } from '../run.js';
import { renderWaited } from '../../lib/output/turns.js';

export const { command, describe, builder } = commandOf(C.wait);

export const handler = (a: GlobalArgs & CliArgs<typeof C.wait>) =>
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
