import { env, terminalColumns } from '../core/env.js';
// Small text helpers shared by every renderer.

export const termWidth = () => {
  const cols = Number(env().COLUMNS);
  if (Number.isFinite(cols) && cols > 20) return cols;
  return terminalColumns() ?? 120;
};

/** Display width ignoring combining marks; wide CJK/emoji count as 2. Good enough for tables. */
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

export function width(s: string): number {
  if (PRINTABLE_ASCII.test(s)) return s.length;
  let w = 0;
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (c < 32 || (c >= 0x300 && c <= 0x36f)) continue;
    w +=
      c >= 0x1100 &&
      (c <= 0x115f ||
        (c >= 0x2e80 && c <= 0xa4cf) ||
        (c >= 0xac00 && c <= 0xd7a3) ||
        (c >= 0xf900 && c <= 0xfaff) ||
        (c >= 0xfe30 && c <= 0xfe4f) ||
        (c >= 0xff00 && c <= 0xff60) ||
        (c >= 0xffe0 && c <= 0xffe6) ||
        (c >= 0x1f300 && c <= 0x1faff) ||
        (c >= 0x20000 && c <= 0x3fffd))
        ? 2
        : 1;
  }
  return w;
}

export function truncate(s: string, max: number): string {
  if (s.length <= max && PRINTABLE_ASCII.test(s)) return s;
  const oneLine = s.replace(/\s*[\r\n]+\s*/g, ' ');
  if (width(oneLine) <= max) return oneLine;
  let out = '';
  let w = 0;
  for (const ch of oneLine) {
    const cw = width(ch);
    if (w + cw > max - 1) break;
    out += ch;
    w += cw;
  }
  return out + '…';
}

export const pad = (s: string, n: number) => s + ' '.repeat(Math.max(0, n - width(s)));

/** Renders rows as aligned columns; the last column takes what is left of the terminal. */
export function table(head: string[], rows: string[][], maxWidth = termWidth()): string {
  const all = [head, ...rows];
  const widths = head.map((_, i) => Math.max(...all.map((r) => width(r[i] ?? ''))));
  const fixed = widths.slice(0, -1).reduce((a, b) => a + b + 2, 0);
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

export function ago(iso: string, now = Date.now()): string {
  const s = Math.max(0, Math.round((now - new Date(iso).getTime()) / 1000));
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
