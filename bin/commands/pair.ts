import { CONTRACTS as C, type CliArgs } from '../../lib/ops/contract/index.js';
import { commandOf } from '../contract.js';
import { run, type GlobalArgs } from '../run.js';
import { renderPaired } from '../../lib/output/turns.js';

export const { command, describe, builder } = commandOf(C.pair);

export const handler = (a: GlobalArgs & CliArgs<typeof C.pair>) =>
  run(
    a,
    async (app) => {
      const { pairTask } = await import('../../lib/ops/pair.js');
      return pairTask(app, String(a.id));
    },
    renderPaired,
  );
