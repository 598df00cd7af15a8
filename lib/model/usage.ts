import type { Json } from '../core/json.js';
import { spentOf } from './details.js';

// Token usage, one shape for every agent: what a turn records in details.usage and what
// show and list sum per task. input_tokens never includes cache reads (claude reports
// them apart; codex counts them inside its input, so its adapter subtracts them).

export type Usage = {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
};

/** A task's totals over its agent turns; cost_usd is null when no turn's agent reported a cost. */
export type UsageTotals = Usage & { cost_usd: number | null };

const FIELDS = ['input_tokens', 'output_tokens', 'cache_read_input_tokens', 'cache_creation_input_tokens'] as const;

const count = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0);

/** The normalized fields of a usage object (anything missing or not a count is 0). */
export function usageOf(raw: unknown): Usage {
  const r = (raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
  return Object.fromEntries(FIELDS.map((f) => [f, count(r[f])])) as Usage;
}

/**
 * A turn's share of a thread's cumulative usage: the difference from the previous report of
 * the same thread. A counter that went down means the thread started over: the report is the turn's.
 */
export function usageSince(cumulative: Usage, previous: Usage | undefined): Usage {
  if (!previous || FIELDS.some((f) => cumulative[f] < previous[f])) return { ...cumulative };
  return Object.fromEntries(FIELDS.map((f) => [f, cumulative[f] - previous[f]])) as Usage;
}

type TurnLike = { role: string; details?: { [k: string]: Json } | null };

/** The cumulative usage the latest agent turn of this agent session recorded (details.usage_cumulative). */
export function lastCumulative(turns: readonly TurnLike[], sessionId: string | undefined): Usage | undefined {
  if (!sessionId) return undefined;
  for (let i = turns.length - 1; i >= 0; i--) {
    const d = turns[i]!.details;
    if (turns[i]!.role === 'agent' && d?.agent_session_id === sessionId && d.usage_cumulative)
      return usageOf(d.usage_cumulative);
  }
  return undefined;
}

/** Per-task totals: the sum over its agent turns, with the cost their agents reported. */
export function taskUsage(turns: readonly TurnLike[]): UsageTotals {
  const sum: UsageTotals = { ...usageOf(null), cost_usd: null };
  for (const t of turns) {
    if (t.role !== 'agent' || !t.details) continue;
    const u = usageOf(t.details.usage);
    for (const f of FIELDS) sum[f] += u[f];
    const cost = t.details.cost_usd;
    if (typeof cost === 'number' && Number.isFinite(cost)) sum.cost_usd = (sum.cost_usd ?? 0) + cost;
  }
  return sum;
}

/**
 * One agent turn as `lazy usage` counts it, compact as the listing index stores it: when it ended, its agent and
 * model (null: not recorded / the CLI's default), its four token counts, the cost its agent reported (null: none),
 * and its agent time in seconds (null: its start is not on record).
 */
export type TurnSpend = [
  ended: string,
  agent: string | null,
  model: string | null,
  input: number,
  output: number,
  cache_read: number,
  cache_write: number,
  cost_usd: number | null,
  agent_seconds: number | null,
];

type RunLike = { run: string | null; timestamp: string };

/**
 * Agent time of one turn: from its run's launch (the move into working that names the run, else the run's first
 * turn before the agent's, the prompt) to its agent turn, less the seconds it recorded waiting on a subtask.
 * Waits for a person (a question, a decision) end the turn, so they never fall inside it.
 */
function agentSeconds(t: TurnLike & RunLike, starts: Map<string, string>): number | null {
  const start = t.run ? starts.get(t.run) : undefined;
  if (!start) return null;
  const span = (Date.parse(t.timestamp) - Date.parse(start)) / 1000;
  if (!Number.isFinite(span)) return null;
  return Math.max(0, Math.round((span - spentOf(t).waited_seconds) * 1000) / 1000);
}

/** Every agent turn's TurnSpend, in the order of `turns`. */
export function turnSpends(
  turns: readonly (TurnLike & RunLike)[],
  changelog: readonly (RunLike & { status: string })[],
): TurnSpend[] {
  const starts = new Map<string, string>();
  for (const c of changelog) if (c.run && c.status === 'working' && !starts.has(c.run)) starts.set(c.run, c.timestamp);
  for (const t of turns) if (t.run && t.role !== 'agent' && !starts.has(t.run)) starts.set(t.run, t.timestamp);
  const out: TurnSpend[] = [];
  for (const t of turns) {
    if (t.role !== 'agent' || !t.details) continue;
    const u = usageOf(t.details.usage);
    const s = spentOf(t);
    out.push([
      t.timestamp,
      s.agent,
      s.model,
      u.input_tokens,
      u.output_tokens,
      u.cache_read_input_tokens,
      u.cache_creation_input_tokens,
      s.cost_usd,
      agentSeconds(t, starts),
    ]);
  }
  return out;
}
