import { CONTRACTS as C, type CliArgs } from '../../lib/ops/contract/index.js';
import { commandOf } from '../contract.js';
import { run, type GlobalArgs } from '../run.js';
import { renderWork, renderWorkEvent, workExit } from '../../lib/output/work.js';

export const { command, describe, builder } = commandOf(C.work);

type WorkArgs = GlobalArgs & CliArgs<typeof C.work>;

export const handler = (a: WorkArgs) =>
  run(
    a,
    async (app) => {
      const { work } = await import('../../lib/ops/work/index.js');
      const o = { remote: a.remote, agent: a.agent, max: a.max, drain: a.drain, now: a.now };
      return work(app, o, (kind, e) => (a.json ? app.io.err : app.io.out)(renderWorkEvent(kind, e)));
    },
    renderWork,
    { exit: workExit },
  );
