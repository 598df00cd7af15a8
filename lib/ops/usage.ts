import { usageError } from '../core/errors.js';
import { turnCost, type Pricing } from '../model/pricing.js';
import type { TurnSpend } from '../model/usage.js';
import { refreshIndex } from '../store/listing/index.js';
import type { Spent } from '../store/listing/spend.js';
import type { App } from './app.js';

// lazy usage: what the agents cost, summed per task, agent, model, UTC day or ISO week, from each agent turn's
// record in the listing index (rows.ts `spend`), never from the task documents at query time. Invariant: a cost
// nobody knows stays unknown: a group sums the costs it knows and counts the turns it could not price.

export const USAGE_BY = ['task', 'agent', 'model', 'day', 'week'] as const;
export type UsageBy = (typeof USAGE_BY)[number];

export interface UsageInput {
  by?: UsageBy;
  since?: string;
  until?: string;
}

export interface UsageSums {
  turns: number;
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
  /** The sum of the costs known (reported, else priced by config `pricing`); null when none is. */
  cost_usd: number | null;
  /** Turns whose cost is unknown: no reported cost and no price for their model. */
  unpriced_turns: number;
  /** Agent time: each turn's launch to its end, less its waits on subtasks (turns with no start on record: 0). */
  agent_seconds: number;
}

export interface UsageGroup extends UsageSums {
  key: string;
  /** --by task: the task's goal. */
  goal?: string;
}

export interface UsageReport {
  by: UsageBy;
  /** The bounds as applied (ISO, UTC), null when open. */
  since: string | null;
  until: string | null;
  groups: UsageGroup[];
  total: UsageSums;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/;

/**
 * A bound: a day (YYYY-MM-DD, a whole UTC day, so --until includes it) or an ISO time with its zone. `end` says
 * which side of a day is meant. A bad one is refused naming the flag (exit 2).
 */
export function parseBound(flag: string, text: string | undefined, end: boolean): number | null {
  if (text === undefined || text === '') return null;
  const t = text.trim();
  const day = DAY.test(t);
  const ms = day ? Date.parse(`${t}T00:00:00Z`) : ISO_TIME.test(t) ? Date.parse(t) : NaN;
  if (!Number.isFinite(ms) || (day && new Date(ms).toISOString().slice(0, 10) !== t))
    throw usageError(`--${flag} takes a date (YYYY-MM-DD, UTC) or an ISO time with its zone (got '${text}')`, {
      [flag]: text,
    });
  return day && end ? ms + 86_400_000 - 1 : ms;
}

/** ISO 8601 week of a UTC time: 2026-W49 (the week of its Thursday, weeks start on Monday). */
export function isoWeek(ms: number): string {
  const d = new Date(ms);
  const day = (d.getUTCDay() + 6) % 7; // Monday 0
  const thursday = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() - day + 3);
  const year = new Date(thursday).getUTCFullYear();
  const week = 1 + Math.floor((thursday - Date.UTC(year, 0, 1)) / (7 * 86_400_000));
  return `${year}-W${String(week).padStart(2, '0')}`;
}

const empty = (): UsageSums => ({
  turns: 0,
  input_tokens: 0,
  output_tokens: 0,
  cache_read_input_tokens: 0,
  cache_creation_input_tokens: 0,
  cost_usd: null,
  unpriced_turns: 0,
  agent_seconds: 0,
});

/** A turn's cost: reported, else priced by the table for its model, else null (lib/model/pricing.ts). */
function costOf(t: TurnSpend, pricing: Pricing | undefined): number | null {
  const [, , model, input, output, cacheRead, cacheWrite, reported] = t;
  if (reported !== null) return reported;
  const usage = {
    input_tokens: input,
    output_tokens: output,
    cache_read_input_tokens: cacheRead,
    cache_creation_input_tokens: cacheWrite,
  };
  return turnCost({ usage, model: model ?? undefined }, pricing);
}

function add(s: UsageSums, t: TurnSpend, cost: number | null): void {
  s.turns++;
  s.input_tokens += t[3];
  s.output_tokens += t[4];
  s.cache_read_input_tokens += t[5];
  s.cache_creation_input_tokens += t[6];
  if (cost === null) s.unpriced_turns++;
  else s.cost_usd = (s.cost_usd ?? 0) + cost;
  s.agent_seconds += t[8] ?? 0;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** The group a turn falls in; the CLI's default model and an unrecorded agent get a name of their own. */
function keyOf(by: UsageBy, task: string, t: TurnSpend): string {
  if (by === 'task') return task;
  if (by === 'agent') return t[1] ?? '(unknown)';
  if (by === 'model') return t[2] ?? '(default)';
  return by === 'day' ? t[0].slice(0, 10) : isoWeek(Date.parse(t[0]));
}

/**
 * The tasks agents worked on, in creation order, brought current: no row is kept, so none is built. The index's spend
 * file when it is the base's, else its detail rows (read whole, slower, the same records).
 */
async function spentTasks(app: App): Promise<Spent[]> {
  const { cwd, lazyDir } = app.repo;
  const fast = await refreshIndex(cwd, lazyDir, app.store.reader, false, () => false, true);
  return (
    fast.spent?.(lazyDir) ??
    (await refreshIndex(cwd, lazyDir, app.store.reader, true, () => false, true)).spent!(lazyDir)!
  );
}

export async function usage(app: App, input: UsageInput = {}): Promise<UsageReport> {
  const by = input.by ?? 'task';
  if (!USAGE_BY.includes(by)) throw usageError(`--by takes ${USAGE_BY.join(', ')} (got '${by}')`, { by });
  const since = parseBound('since', input.since, false);
  const until = parseBound('until', input.until, true);
  const pricing = (await app.config()).pricing;
  const spent = await spentTasks(app);
  const groups = new Map<string, UsageGroup>();
  const total = empty();
  // Stored times are all toISOString's: compared as text, no turn's time is parsed to filter it.
  const [from, to] = [iso(since), iso(until)];
  for (const r of spent)
    for (const t of r.spend) {
      if ((from !== null && t[0] < from) || (to !== null && t[0] > to)) continue;
      const key = keyOf(by, r.id, t);
      let g = groups.get(key);
      if (!g) groups.set(key, (g = { key, ...(by === 'task' ? { goal: r.goal() } : {}), ...empty() }));
      const cost = costOf(t, pricing);
      add(g, t, cost);
      add(total, t, cost);
    }
  const list = [...groups.values()];
  if (by !== 'task') list.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return { by, since: from, until: to, groups: list, total };
}
