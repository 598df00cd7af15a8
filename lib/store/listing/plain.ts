import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../../core/fsutil.js';
import { byCreation, readBase, rowOf, VERSION } from './files.js';
import { fromTuple, isLive, toTuple, type BadRow, type LeanRow, type Tuple } from './rows.js';

// The listing's plain file: for each row of the base, in the base's order, the line piped `lazy list` prints, so
// the common list (no filter but the status) copies runs of lines instead of parsing and rendering 100,000 rows.
// Invariant: it is written with the base, or from it, and names the base's generation; a file for another base is
// never read.
// A line is the piped line itself (PlainLines.line), or `*<status>\t<id>\t<tuple>` for a row whose status cell is
// live (`*` starts no id).

export const plainPath = (lazyDir: string) => join(lazyDir, 'index-plain.tsv');

/**
 * The piped line, handed down by whoever lists: its shape is output's (lib/output/piped-line.ts PIPED_LINES), and
 * output sits above the store, so the store only writes the lines it is given and keys the file on their version
 * (a changed line is a foreign file, rebuilt, not misread). Only refreshPlain's caller has them: a base rewritten
 * for another caller leaves the plain file of the base before, which names that base and so is never read.
 */
export interface PlainLines {
  /** Changes whenever the line's shape does. */
  version: string;
  line(r: LeanRow): string;
}

/** The plain file's key: the index's (the table's signature in it) and the line's. */
const plainKey = (lines: PlainLines) => `${VERSION}+${lines.version}`;

interface PlainHeader {
  version: string;
  gen: string;
  /** The base's last row in creation order: a row new since sorts after it, or the plain file cannot place it. */
  last: { created_at: string; id: string } | null;
  /** The base's unreadable tasks (they have no line). */
  bad: BadRow[];
}

export function plainText(gen: string, rows: LeanRow[], bad: BadRow[], piped: PlainLines): string {
  const last = rows.length ? { created_at: rows.at(-1)!.created_at, id: rows.at(-1)!.id } : null;
  const lines = rows.map((r) => (isLive(r) ? `*${r.status}\t${r.id}\t${JSON.stringify(toTuple(r))}` : piped.line(r)));
  return `${JSON.stringify({ version: plainKey(piped), gen, last, bad } satisfies PlainHeader)}\n${lines.join('\n')}\n`;
}

export const writePlain = (lazyDir: string, text: string) => writeFileAtomic(plainPath(lazyDir), text);

/** Writes the plain file of the base as stored, in its order; false when there is no base or it cannot be read. */
export async function plainOfBase(lazyDir: string, piped: PlainLines): Promise<boolean> {
  try {
    const { gen, lean, bad } = readBase(lazyDir);
    if (!gen) return false;
    await writePlain(lazyDir, plainText(gen, [...lean.values()].map(rowOf), [...bad.values()], piped));
    return true;
  } catch {
    return false;
  }
}

/** What the delta changes over the base, as the plain file's reader needs it. */
export interface Overlay {
  gen: string;
  rows: Tuple[];
  /** Ids gone, or unreadable, since the base (unreadable rows of the base itself have no line). */
  out: Set<string>;
}

/**
 * A listed item: a run of consecutive piped lines (joined by newlines, none at the end) when nothing about
 * them is live, else one row to render.
 */
export type PlainItem = string | LeanRow;

const NL = 10;
const TAB = 9;
const STAR = 42;

/**
 * The rows kept, in creation order, from the plain file with the delta laid over it; undefined when the file is
 * missing, for another base, or cannot place a row new since (the caller then takes the full path).
 */
export function plainRows(
  lazyDir: string,
  o: Overlay,
  keep: (status: string) => boolean,
  piped: PlainLines,
): { items: PlainItem[]; bad: BadRow[] } | undefined {
  let buf: Buffer;
  let h: PlainHeader;
  try {
    buf = readFileSync(plainPath(lazyDir));
    h = JSON.parse(buf.toString('utf8', 0, buf.indexOf(NL))) as PlainHeader;
  } catch {
    return undefined;
  }
  if (h.version !== plainKey(piped) || h.gen !== o.gen) return undefined;
  const over = new Map(o.rows.map((t) => [t[0], t]));
  // Bytes, not a string: a run of kept lines is decoded once, and a line only its id and status are looked at.
  const firsts = new Set([...over.keys(), ...o.out].map((id) => id.charCodeAt(0)));
  const keeps = statusKeeper(buf, keep);
  const items: PlainItem[] = [];
  let run = -1;
  const flush = (to: number) => {
    if (run >= 0 && to > run) items.push(buf.toString('utf8', run, to));
    run = -1;
  };
  let at = buf.indexOf(NL) + 1;
  while (at < buf.length) {
    let end = buf.indexOf(NL, at);
    if (end < 0) end = buf.length;
    // The first two tabs are a few bytes in: a loop beats two native calls a line.
    let t1 = at;
    while (t1 < end && buf[t1] !== TAB) t1++;
    let t2 = t1 + 1;
    while (t2 < end && buf[t2] !== TAB) t2++;
    if (t2 >= end) {
      (flush(at - 1), (at = end + 1)); // the blank line after a base with no rows
      continue;
    }
    const live = buf[at] === STAR;
    const idAt = live ? t1 + 1 : at;
    const idEnd = live ? t2 : t1;
    if (firsts.has(buf[idAt]!)) {
      const id = buf.toString('latin1', idAt, idEnd);
      const t = over.get(id);
      if (t || o.out.has(id)) {
        flush(at - 1);
        if (t) over.delete(id);
        if (t && !o.out.has(id) && keep(t[2])) items.push(fromTuple(t));
        at = end + 1;
        continue;
      }
    }
    const wanted = live ? keeps(at + 1, t1) : keeps(t1 + 1, t2);
    if (!wanted || live) flush(at - 1);
    if (wanted) {
      if (live) items.push(fromTuple(JSON.parse(buf.toString('utf8', t2 + 1, end)) as Tuple));
      else if (run < 0) run = at;
    }
    at = end + 1;
  }
  flush(buf[buf.length - 1] === NL ? buf.length - 1 : buf.length);
  // Rows new since the base follow it only when they were created after its last row.
  const added = [...over.values()].filter((t) => !o.out.has(t[0])).map(fromTuple);
  added.sort(byCreation);
  if (added.length && h.last && byCreation(added[0]!, h.last) < 0) return undefined;
  for (const r of added) if (keep(r.status)) items.push(r);
  const bad = h.bad.filter((b) => !o.out.has(b.id) && !o.rows.some((t) => t[0] === b.id));
  return { items, bad };
}

/**
 * Whether `keep` wants the status stored at buf[start, end): asked once per distinct status, which is then
 * recognised byte by byte (a string per line cost 15 ms at 100,000 rows).
 */
function statusKeeper(buf: Buffer, keep: (status: string) => boolean) {
  const seen: { at: number; len: number; wanted: boolean }[] = [];
  return (start: number, end: number): boolean => {
    const len = end - start;
    next: for (const k of seen) {
      if (k.len !== len) continue;
      for (let i = 0; i < len; i++) if (buf[k.at + i] !== buf[start + i]) continue next;
      return k.wanted;
    }
    const wanted = keep(buf.toString('latin1', start, end));
    seen.push({ at: start, len, wanted });
    return wanted;
  };
}

/** The first `n` rows of the items (a run counts a row per line). */
export function firstRows(items: PlainItem[], n: number): PlainItem[] {
  const out: PlainItem[] = [];
  for (const it of items) {
    if (n <= 0) break;
    if (typeof it !== 'string') {
      (out.push(it), n--);
      continue;
    }
    let cut = -1;
    while (n > 0 && (cut = it.indexOf('\n', cut + 1)) >= 0) n--;
    if (cut < 0) n--; // the whole run fit, its last line included
    out.push(cut < 0 ? it : it.slice(0, cut));
  }
  return out;
}

/** Rows read again since the delta was last saved: readable ones, unreadable ones, and ids whose ref is gone. */
export interface Few {
  /** The fingerprint of the delta they were laid over. */
  from: string;
  rows: Tuple[];
  bad: BadRow[];
  gone: string[];
}

/**
 * The early rows with the few re-read laid over them; undefined when a re-read row was not listed before (a new
 * task, a status the filter now keeps): its place in creation order is found by a fresh pass.
 */
export function patch(early: { items: PlainItem[]; bad: BadRow[] }, few: Few, keep: (status: string) => boolean) {
  const changed = new Map<string, Tuple | null>(few.rows.map((t) => [t[0], t]));
  for (const id of [...few.gone, ...few.bad.map((b) => b.id)]) changed.set(id, null);
  const ids = [...changed.keys()];
  const found = new Set<string>();
  const items: PlainItem[] = [];
  const replace = (id: string) => {
    found.add(id);
    const t = changed.get(id);
    if (t && keep(t[2])) items.push(fromTuple(t));
  };
  for (const it of early.items) {
    if (typeof it !== 'string') {
      if (changed.has(it.id)) replace(it.id);
      else items.push(it);
      continue;
    }
    // A run is searched natively for each id at a line's start, and cut around the lines found (slices of a
    // 9 MB string are not copies).
    const hits = ids.map((id) => [lineAt(it, id), id] as const).filter(([p]) => p >= 0);
    hits.sort((x, y) => x[0] - y[0]);
    let from = 0;
    for (const [p, id] of hits) {
      if (p > from) items.push(it.slice(from, p - 1));
      replace(id);
      const end = it.indexOf('\n', p);
      from = end < 0 ? it.length + 1 : end + 1;
    }
    if (from < it.length) items.push(from ? it.slice(from) : it);
  }
  if (few.rows.some((t) => !found.has(t[0]) && keep(t[2]))) return undefined;
  return { items, bad: [...early.bad.filter((b) => !changed.has(b.id)), ...few.bad] };
}

/** Where the line of `id` starts in a run, or -1. */
function lineAt(run: string, id: string): number {
  if (run.startsWith(`${id}\t`)) return 0;
  const i = run.indexOf(`\n${id}\t`);
  return i < 0 ? -1 : i + 1;
}
