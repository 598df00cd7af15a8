import { CONTRACTS as C, type CliArgs } from '../../lib/ops/contract/index.js';
import { commandOf } from '../contract.js';
import { run, type GlobalArgs } from '../run.js';

// Hidden: seeds N tasks through the store's own documents (npm run bench uses it; lib/ops/bench-seed.ts).
export const { command, describe, builder } = commandOf(C.benchSeed);

export const handler = (a: GlobalArgs & CliArgs<typeof C.benchSeed>) =>
  run(
    a,
    async (app) => {
      const { benchSeed } = await import('../../lib/ops/bench-seed.js');
      return benchSeed(app, Number(a.count), Number(a.complete ?? 0), Number(a.daysAgo ?? 0));
    },
    (r) => `${r.created} tasks`,
  );
