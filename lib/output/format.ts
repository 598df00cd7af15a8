import { env, terminalColumns } from '../core/env.js';
import { clusters, displayWidth } from './string-width.js';
import { style } from './color.js';
import { oneCell } from '../core/sanitize.js';
import { now } from '../core/clock.js';
// Small text helpers shared by every renderer.

export const termWidth = () => {
  const cols = Number(env().COLUMNS);
  if (Number.isFinite(cols) && cols > 20) return cols;
  return terminalColumns() ?? 120;
};

/** Display width in terminal columns (lib/output/string-width.ts). */
export const width = displayWidth;

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/** One line of at most `max` columns, cut between clusters (an emoji sequence is never split) and marked with "…". */
export function truncate(s: string, max: number): string {
  if (s.length <= max && PRINTABLE_ASCII.test(s)) return s;
  const oneLine = s.replace(/\s*[\r\n]+\s*/g, ' ');
  if (width(oneLine) <= max) return oneLine;
  let out = '';
  let w = 0;
  for (const c of clusters(oneLine)) {
    if (w + c.width > max - 1) break;
    out += c.text;
    w += c.width;
  }
  return out + '…';
}

/** Cut to `max` columns on a terminal; whole (on one line) anywhere else: piped output is never truncated. */
export const fitted = (s: string, max: number) => (style().tty ? truncate(s, max) : s.replace(/\s*[\r\n]+\s*/g, ' '));

export const pad = (s: string, n: number) => s + ' '.repeat(Math.max(0, n - width(s)));

/**
 * Rows as a table. On a terminal: a header and aligned columns, the last one cut to what is left of
 * its width. Elsewhere (a pipe, a file), like gh: no header, cells whole and tab-separated, one row
 * a line, so scripts can cut and awk them.
 */
export function table(head: string[], rows: string[][], maxWidth = termWidth()): string {
  if (!style().tty) return rows.map((r) => r.map(oneCell).join('\t')).join('\n');
  const all = [head, ...rows];
  // The last column is cut, never padded: only the others are measured (a goal is the longest cell).
  // A loop, not Math.max(...cells): 100,000 arguments overflow the stack.
  const widths = head.slice(0, -1).map((_, i) => all.reduce((m, r) => Math.max(m, width(r[i] ?? '')), 0));
  const fixed = widths.reduce((a, b) => a + b + 2, 0);
  const last = Math.max(10, maxWidth - fixed);
  return all
    .map((r) =>
      r
        .map((c, i) => (i === r.length - 1 ? truncate(c, last) : pad(c, widths[i]!)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** "2026-11-30 01:34" in local time, compact for tables. */
export function shortTime(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
}

export function ago(iso: string, at = now()): string {
  const s = Math.max(0, Math.round((at - new Date(iso).getTime()) / 1000));
  if (s < 60) return `${s}s ago`;
  if (s < 3600) return `${Math.round(s / 60)}m ago`;
  if (s < 86400) return `${Math.round(s / 3600)}h ago`;
  return `${Math.round(s / 86400)}d ago`;
}

export const indent = (text: string, n = 2) =>
  text
    .split('\n')
    .map((l) => (l ? ' '.repeat(n) + l : l))
    .join('\n');
