import { usageOf, type Usage } from './usage.js';

// What an agent's turn cost, in one place for `lazy usage` and the budgets: the figure its agent reported, else its
// tokens priced by the repository's table (config `pricing.<model>.{input,output,cache_read,cache_write}`, US dollars
// per million tokens), else unknown. Invariant: an unknown cost is null, never 0 (a free turn and an unpriced one
// must not look alike).

/** One model's prices, US dollars per million tokens; a kind of token without a price makes the cost unknown. */
export interface Price {
  input?: number;
  output?: number;
  cache_read?: number;
  cache_write?: number;
}

export type Pricing = Readonly<Record<string, Price>>;

const PRICED: readonly [keyof Usage, keyof Price][] = [
  ['input_tokens', 'input'],
  ['output_tokens', 'output'],
  ['cache_read_input_tokens', 'cache_read'],
  ['cache_creation_input_tokens', 'cache_write'],
];

/** The cost of `usage` at `price`, or null when a kind of token it used has no price. */
export function priced(usage: Usage, price: Price | undefined): number | null {
  if (!price) return null;
  let sum = 0;
  for (const [tokens, kind] of PRICED) {
    if (usage[tokens] === 0) continue;
    const per = price[kind];
    if (typeof per !== 'number' || !Number.isFinite(per) || per < 0) return null;
    sum += (usage[tokens] * per) / 1_000_000;
  }
  return sum;
}

/** A turn's cost: reported by its agent, else priced by the table for the model it ran with, else null. */
export function turnCost(
  details: { usage?: unknown; cost_usd?: unknown; model?: unknown } | null | undefined,
  pricing: Pricing | undefined,
): number | null {
  if (!details) return null;
  const reported = details.cost_usd;
  if (typeof reported === 'number' && Number.isFinite(reported) && reported >= 0) return reported;
  const model = typeof details.model === 'string' ? details.model : undefined;
  return priced(usageOf(details.usage), model ? pricing?.[model] : undefined);
}
