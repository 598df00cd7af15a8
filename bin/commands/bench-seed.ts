import { CONTRACTS as C, type CliArgs } from '../../lib/ops/contract/index.js';
import { commandOf } from '../contract.js';
import { run, type GlobalArgs } from '../run.js';
import type { Draft } from '../../lib/store/draft.js';
import { randomId } from '../../lib/core/ids.js';

// Hidden: seeds N tasks through the store's own documents (npm run bench uses it). Every other task carries one
// agent turn's recorded usage (half of those with a reported cost), so lazy usage has turns to sum; with --complete k
// --days-ago d the first k are finished d days ago, so lazy archive has them to take.
export const { command, describe, builder } = commandOf(C.benchSeed);

export const handler = (a: GlobalArgs & CliArgs<typeof C.benchSeed>) =>
  run(
    a,
    async (app) => {
      const { bulkCreate } = await import('../../lib/store/bulk.js');
      // --complete k --days-ago d: the first k tasks finished d days ago (what lazy archive takes).
      const finished = Math.min(Number(a.complete ?? 0), Number(a.count));
      const ago = new Date(app.io.clock.now() - Number(a.daysAgo ?? 0) * 86_400_000).toISOString();
      const ids = await bulkCreate(
        app.store,
        Number(a.count),
        (i) => ({
          goal: `benchmark task ${i}: keep the listing fast`,
          prompt: null,
          acceptance: ['lazy list stays fast'],
          tags: i % 10 === 0 ? ['bench'] : [],
          parent: null,
          agent: null,
          base: 'main',
        }),
        (d, i) => (seedUsage(d, i), i < finished && finish(d, i)),
        (i) => (i < finished ? ago : undefined),
      );
      return { created: ids.length, first: ids[0] ?? null };
    },
    (r) => `${r.created} tasks`,
  );

/** Even tasks complete (started, then the agent's round ends them), odd ones abandoned (closed). */
function finish(d: Draft, i: number): void {
  if (i % 2) d.transition('abandoned', 'close', 'benchmark: closed');
  else {
    d.transition('working', 'start', 'benchmark: started', { run: randomId() });
    d.transition('complete', 'round_end', 'benchmark: done');
  }
}

function seedUsage(d: Draft, i: number): void {
  if (i % 2) return;
  d.turn({
    role: 'agent',
    kind: 'result',
    actor: 'agent',
    content: `benchmark turn ${i}`,
    run: randomId(),
    details: {
      outcome: 'completed',
      agent: i % 4 ? 'claude' : 'codex',
      model: i % 4 ? 'claude-sonnet-4' : 'gpt-5',
      usage: {
        input_tokens: 1200,
        output_tokens: 300,
        cache_read_input_tokens: 5000,
        cache_creation_input_tokens: 800,
      },
      ...(i % 4 ? { cost_usd: 0.0123 } : {}),
    },
  });
}
