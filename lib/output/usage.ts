import type { UsageReport, UsageSums } from '../ops/usage.js';
import { table } from './format.js';

// lazy usage as text: one aligned row per group and a total, numbers as people read them (1.2M tokens, $0.42,
// 3m 20s). An unknown cost is never printed as $0: a group with unpriced turns says how many.

const UNITS: readonly [number, string][] = [
  [1e9, 'B'],
  [1e6, 'M'],
  [1e3, 'k'],
];

/** 950, 12.3k, 1.2M, 3.4B. */
export function humanCount(n: number): string {
  for (const [size, unit] of UNITS)
    if (n >= size) {
      const v = n / size;
      return `${v >= 100 ? Math.round(v) : Number(v.toFixed(1))}${unit}`;
    }
  return String(n);
}

/** $0.42, $12.30, $0.0012 for what rounds to no cent; with unpriced turns "$0.42 + 3 unpriced"; none known: "unknown (3)". */
export function humanCost(s: Pick<UsageSums, 'cost_usd' | 'unpriced_turns'>): string {
  const c = s.cost_usd;
  const unpriced = s.unpriced_turns ? `${s.unpriced_turns} unpriced` : '';
  if (c === null) return unpriced ? `unknown (${unpriced})` : '-';
  const money = c > 0 && c < 0.01 ? `$${c.toFixed(4)}` : `$${c.toFixed(2)}`;
  return unpriced ? `${money} + ${unpriced}` : money;
}

/** 45s, 3m 20s, 2h 05m. */
export function humanSeconds(total: number): string {
  const s = Math.round(total);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

const cells = (s: UsageSums) => [
  String(s.turns),
  humanCount(s.input_tokens),
  humanCount(s.output_tokens),
  humanCount(s.cache_read_input_tokens),
  humanCount(s.cache_creation_input_tokens),
  humanCost(s),
  humanSeconds(s.agent_seconds),
];

export function renderUsage(r: UsageReport): string {
  if (!r.groups.length) return 'no agent turns recorded usage in this period';
  const task = r.by === 'task';
  const head = [r.by.toUpperCase(), 'TURNS', 'INPUT', 'OUTPUT', 'CACHE READ', 'CACHE WRITE', 'COST', 'AGENT TIME'];
  // The goal, the longest cell, goes last: the table cuts only the last column.
  const rows = r.groups.map((g) => [g.key, ...cells(g), ...(task ? [g.goal ?? ''] : [])]);
  rows.push(['total', ...cells(r.total), ...(task ? [''] : [])]);
  return table(task ? [...head, 'GOAL'] : head, rows);
}
