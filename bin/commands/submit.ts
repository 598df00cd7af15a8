import { CONTRACTS as C, type CliArgs } from '../../lib/ops/contract/index.js';
import { commandOf } from '../contract.js';
import { run, type GlobalArgs } from '../run.js';
import { renderSubmitted } from '../../lib/output/review.js';
import type { Submitted } from '../../lib/ops/submit.js';

export const { command, describe, builder } = commandOf(C.submit);

export const handler = (a: GlobalArgs & CliArgs<typeof C.submit>) => {
  let exit = (_: Submitted) => 0;
  return run(
    a,
    async (app) => {
      const ops = await import('../../lib/ops/submit.js');
      exit = ops.submitExit;
      return ops.submitTask(app, String(a.id), a.remote);
    },
    renderSubmitted,
    { exit: (v) => exit(v) },
  );
};
