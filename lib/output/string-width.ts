import { eastAsianWidth } from 'get-east-asian-width';
import { PAINT_CODES } from './color.js';

// Display width in terminal columns. It also stands in for the string-width package inside the
// bundle (scripts/build.mjs aliases it): cliui, which yargs uses for help text, imports
// string-width, whose module top level constructs Intl.Segmenter: ~23 ms measured on every
// command, help or not. So clusters are found here by the few rules a terminal's width needs,
// with get-east-asian-width (what string-width itself uses) for each cluster's base.

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
/** Invisible on their own: controls, format characters (ZWSP, bidi marks), combining marks, selectors. */
const ZERO = /[\p{Default_Ignorable_Code_Point}\p{Control}\p{Format}\p{Mark}\p{Surrogate}]/u;
const ZWJ = 0x200d;
const VS16 = 0xfe0f;
const isModifier = (c: number) => c >= 0x1f3fb && c <= 0x1f3ff;
const isRegional = (c: number) => c >= 0x1f1e6 && c <= 0x1f1ff;
/** Printable Latin up to the combining marks: one column, no property lookup (the common case, and fast). */
const isPlainNarrow = (c: number) => (c >= 0x20 && c < 0x7f) || (c >= 0xa0 && c < 0x300 && c !== 0xad);

export interface Cluster {
  text: string;
  width: number;
}

/**
 * The string as the terminal draws it: a base with what attaches to it (marks, selectors, skin tones,
 * ZWJ-joined emoji, a flag's second letter). VS16 asks for emoji presentation: two columns.
 */
export function clusters(s: string): Cluster[] {
  const out: Cluster[] = [];
  let cur: Cluster | undefined;
  let joined = false;
  let flagHalf = false;
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (!joined && isPlainNarrow(c)) {
      out.push((cur = { text: ch, width: 1 }));
      flagHalf = false;
      continue;
    }
    const zero = ZERO.test(ch);
    if (cur && (joined || c === ZWJ || zero || isModifier(c) || (flagHalf && isRegional(c)))) {
      cur.text += ch;
      if (c === VS16 && cur.width === 1) cur.width = 2;
      flagHalf = false;
      joined = c === ZWJ;
      continue;
    }
    joined = false;
    flagHalf = isRegional(c);
    out.push((cur = { text: ch, width: zero ? 0 : isRegional(c) ? 2 : eastAsianWidth(c) }));
  }
  return out;
}

/** Columns `s` takes on a terminal; colour codes take none. */
export function displayWidth(s: string): number {
  if (PRINTABLE_ASCII.test(s)) return s.length;
  const plain = s.replace(PAINT_CODES, '');
  if (PRINTABLE_ASCII.test(plain)) return plain.length;
  let w = 0;
  for (const c of clusters(plain)) w += c.width;
  return w;
}

export default function stringWidth(s: string): number {
  return displayWidth(s);
}
