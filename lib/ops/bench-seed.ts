import type { Draft } from '../store/draft.js';
import { randomId } from '../core/ids.js';
import type { App } from './app.js';

// The hidden seeder (lazy __bench-seed, npm run bench): N tasks through the store's own documents. Every other task
// carries one agent turn's recorded usage (half of those with a reported cost), so lazy usage has turns to sum; with
// `finished` k and `daysAgo` d, the first k are finished d days ago (even ones complete, odd ones abandoned), so lazy
// archive has them to take.

export async function benchSeed(
  app: App,
  count: number,
  finished = 0,
  daysAgo = 0,
): Promise<{ created: number; first: string | null }> {
  const { bulkCreate } = await import('../store/bulk.js');
  const k = Math.min(finished, count);
  const ago = new Date(app.io.clock.now() - daysAgo * 86_400_000).toISOString();
  const ids = await bulkCreate(
    app.store,
    count,
    (i) => ({
      goal: `benchmark task ${i}: keep the listing fast`,
      prompt: null,
      acceptance: ['lazy list stays fast'],
      tags: i % 10 === 0 ? ['bench'] : [],
      parent: null,
      agent: null,
      base: 'main',
    }),
    (d, i) => (seedUsage(d, i), i < k && finish(d, i)),
    (i) => (i < k ? ago : undefined),
  );
  return { created: ids.length, first: ids[0] ?? null };
}

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
