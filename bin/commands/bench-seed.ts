import { CONTRACTS as C, type CliArgs } from '../../lib/ops/contract/index.js';
import { commandOf } from '../contract.js';
import { run, type GlobalArgs } from '../run.js';

// Hidden: seeds N tasks through the store's own documents (npm run bench uses it).
export const { command, describe, builder } = commandOf(C.benchSeed);

export const handler = (a: GlobalArgs & CliArgs<typeof C.benchSeed>) =>
  run(
    a,
    async (app) => {
      const { bulkCreate } = await import('../../lib/store/bulk.js');
      const ids = await bulkCreate(app.store, Number(a.count), (i) => ({
        goal: `benchmark task ${i}: keep the listing fast`,
        prompt: null,
        acceptance: ['lazy list stays fast'],
        tags: i % 10 === 0 ? ['bench'] : [],
        parent: null,
        agent: null,
        base: 'main',
      }));
      return { created: ids.length, first: ids[0] ?? null };
    },
    (r) => `${r.created} tasks`,
  );
