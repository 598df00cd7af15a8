import { CONTRACTS as C, type CliArgs } from '../../lib/ops/contract/index.js';
import { commandOf } from '../contract.js';
import { run, type GlobalArgs } from '../run.js';
import { renderStopped } from '../../lib/output/turns.js';

export const { command, describe, builder } = commandOf(C.stop);

export const handler = (a: GlobalArgs & CliArgs<typeof C.stop>) =>
  run(
    a,
    async (app) => {
      const { stopTask } = await import('../../lib/ops/stop/index.js');
      return stopTask(app, String(a.id), { force: a.force === true });
    },
    renderStopped,
  );
