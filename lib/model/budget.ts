import { turnCost, type Pricing } from './pricing.js';
import { usageOf } from './usage.js';
import type { TurnView } from './views.js';

// Budgets: what a task may spend before it launches another turn (tokens, dollars) and how many auto-resumes the
// repository runs a day. Checked before each launch, never in the middle of a turn (lib/agents/budget.ts), from the
// task's own recorded usage. Invariant: an unknown cost is never counted as 0 spent nor as over the limit: the priced
// turns alone must reach a cost budget to stop a launch, and the attention says how many turns had no price.

/** The limits one launch is held to: the task's own (lazy unblock --budget) over the repository's config. */
export interface Limits {
  tokens?: number;
  cost_usd?: number;
}

/** What a task's agent turns spent: tokens (input + output + cache read + cache write) and the cost of the priced. */
export interface Spent {
  tokens: number;
  /** The sum of the turns whose cost is known (reported or priced); a lower bound when `unpriced` > 0. */
  cost_usd: number;
  /** Agent turns that used tokens and have no known cost. */
  unpriced: number;
}

export type BudgetName = 'task_tokens' | 'task_cost_usd' | 'auto_resumes_per_day';

/** A budget a launch would pass: which, what was spent, its limit and the one line the attention shows. */
export interface Reached {
  budget: BudgetName;
  spent: number;
  limit: number;
  reason: string;
  unpriced?: number;
}

/** The repository's daily cap on auto-resumes when config sets none (the reference's). */
export const AUTO_RESUMES_PER_DAY = 50;

export function spentOf(turns: readonly Pick<TurnView, 'role' | 'details'>[], pricing: Pricing | undefined): Spent {
  const s: Spent = { tokens: 0, cost_usd: 0, unpriced: 0 };
  for (const t of turns) {
    if (t.role !== 'agent' || !t.details) continue;
    const u = usageOf(t.details.usage);
    const tokens = u.input_tokens + u.output_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens;
    s.tokens += tokens;
    const cost = turnCost(t.details, pricing);
    if (cost !== null) s.cost_usd += cost;
    else if (tokens > 0) s.unpriced++;
  }
  return s;
}

/** The first per-task budget `spent` has reached (spent ≥ limit), or null. */
export function taskBudgetReached(spent: Spent, limits: Limits): Reached | null {
  if (limits.tokens !== undefined && spent.tokens >= limits.tokens)
    return {
      budget: 'task_tokens',
      spent: spent.tokens,
      limit: limits.tokens,
      reason: `budget reached: ${tokensText(spent.tokens)} of ${tokensText(limits.tokens)} tokens`,
    };
  if (limits.cost_usd !== undefined && spent.cost_usd >= limits.cost_usd) {
    const more = spent.unpriced ? ` (at least: ${spent.unpriced} turn${spent.unpriced > 1 ? 's' : ''} unpriced)` : '';
    return {
      budget: 'task_cost_usd',
      spent: round(spent.cost_usd),
      limit: limits.cost_usd,
      reason: `budget reached: ${usd(spent.cost_usd)} of ${usd(limits.cost_usd)}${more}`,
      ...(spent.unpriced ? { unpriced: spent.unpriced } : {}),
    };
  }
  return null;
}

/** The daily cap on auto-resumes, reached when `count` of them ran in the last 24 hours. */
export function autoResumesReached(count: number, cap: number): Reached | null {
  if (count < cap) return null;
  return {
    budget: 'auto_resumes_per_day',
    spent: count,
    limit: cap,
    reason: `budget reached: auto-resumes: ${count} of ${cap} today`,
  };
}

/** 1.2M, 950k, 812: a token count as the attention line shows it. */
export function tokensText(n: number): string {
  if (n >= 1_000_000) return `${trim(n / 1_000_000)}M`;
  if (n >= 1_000) return `${trim(n / 1_000)}k`;
  return String(n);
}

const trim = (x: number) => String(Math.round(x * 10) / 10);
const round = (x: number) => Math.round(x * 1_000_000) / 1_000_000;
const usd = (x: number) => `$${x.toFixed(2)}`;
