import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../core/fsutil.js';
import { fromTuple, isLive, plainLine, toTuple, type BadRow, type LeanRow, type Tuple } from './listing-rows.js';

// The listing's plain file: for each row of the base, in the base's order, the line piped `lazy list` prints, so
// the common list (no filter but the status) copies lines instead of parsing and rendering 100,000 rows.
// Invariant: it is written with the base and names the base's generation; a file for another base is never read.
// A line is `-<status>\t<plain line>`, or `*<status>\t<id>\t<tuple>` for a row whose status cell is live.

export const plainPath = (lazyDir: string) => join(lazyDir, 'index-plain.tsv');

interface PlainHeader {
  version: string;
  gen: string;
  /** The base's last row in creation order: a row new since sorts after it, or the plain file cannot place it. */
  last: { created_at: string; id: string } | null;
  /** The base's unreadable tasks (they have no line). */
  bad: BadRow[];
}

export function plainText(version: string, gen: string, rows: LeanRow[], bad: BadRow[]): string {
  const last = rows.length ? { created_at: rows.at(-1)!.created_at, id: rows.at(-1)!.id } : null;
  const lines = rows.map((r) =>
    isLive(r) ? `*${r.status}\t${r.id}\t${JSON.stringify(toTuple(r))}` : `-${r.status}\t${plainLine(r)}`,
  );
  return `${JSON.stringify({ version, gen, last, bad } satisfies PlainHeader)}\n${lines.join('\n')}\n`;
}

export const writePlain = (lazyDir: string, text: string) => writeFileAtomic(plainPath(lazyDir), text);

/** What the delta changes over the base, as the plain file's reader needs it. */
export interface Overlay {
  version: string;
  gen: string;
  rows: Tuple[];
  /** Ids gone, or unreadable, since the base (unreadable rows of the base itself have no line). */
  out: Set<string>;
  byCreation: (a: { created_at: string; id: string }, b: { created_at: string; id: string }) => number;
}

/** A listed row: the piped line when nothing about it is live, else the row itself to render. */
export type PlainItem = string | LeanRow;

/**
 * The rows kept, in creation order, from the plain file with the delta laid over it; undefined when the file is
 * missing, for another base, or cannot place a row new since (the caller then takes the full path).
 */
export function plainRows(
  lazyDir: string,
  o: Overlay,
  keep: (status: string) => boolean,
): { items: PlainItem[]; bad: BadRow[] } | undefined {
  let text: string;
  try {
    text = readFileSync(plainPath(lazyDir), 'utf8');
  } catch {
    return undefined;
  }
  const nl = text.indexOf('\n');
  let h: PlainHeader;
  try {
    h = JSON.parse(text.slice(0, nl)) as PlainHeader;
  } catch {
    return undefined;
  }
  if (h.version !== o.version || h.gen !== o.gen) return undefined;
  const over = new Map(o.rows.map((t) => [t[0], t]));
  const items: PlainItem[] = [];
  const changed = over.size > 0 || o.out.size > 0;
  for (let at = nl + 1; at < text.length;) {
    let end = text.indexOf('\n', at);
    if (end < 0) end = text.length;
    const tab = text.indexOf('\t', at);
    if (tab < 0 || tab > end) {
      at = end + 1; // the blank line after a base with no rows
      continue;
    }
    const status = text.slice(at + 1, tab);
    if (changed) {
      const id = text.slice(tab + 1, text.indexOf('\t', tab + 1));
      const t = over.get(id);
      if (t || o.out.has(id)) {
        if (t) over.delete(id);
        if (t && !o.out.has(id) && keep(t[2])) items.push(fromTuple(t));
        at = end + 1;
        continue;
      }
    }
    if (keep(status)) {
      if (text.charCodeAt(at) === 45 /* - */) items.push(text.slice(tab + 1, end));
      else items.push(fromTuple(JSON.parse(text.slice(text.indexOf('\t', tab + 1) + 1, end)) as Tuple));
    }
    at = end + 1;
  }
  // Rows new since the base follow it only when they were created after its last row.
  const added = [...over.values()].filter((t) => !o.out.has(t[0])).map(fromTuple);
  added.sort(o.byCreation);
  if (added.length && h.last && o.byCreation(added[0]!, h.last) < 0) return undefined;
  for (const r of added) if (keep(r.status)) items.push(r);
  const bad = h.bad.filter((b) => !o.out.has(b.id) && !o.rows.some((t) => t[0] === b.id));
  return { items, bad };
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
 * The early rows with the few re-read laid over them, in place; undefined when a re-read row was not listed
 * before (a new task, a status the filter now keeps): its place in creation order is found by a fresh pass.
 */
export function patch(early: { items: PlainItem[]; bad: BadRow[] }, few: Few, keep: (status: string) => boolean) {
  const changed = new Map<string, Tuple | null>(few.rows.map((t) => [t[0], t]));
  for (const id of [...few.gone, ...few.bad.map((b) => b.id)]) changed.set(id, null);
  const ids = [...changed.keys()];
  const firsts = ids.map((id) => id.charCodeAt(0));
  const found = new Set<string>();
  const items = early.items;
  let kept = 0;
  // In place, one tight pass: a line starts with its id and a tab, and most lines fail on the first character.
  for (let i = 0; i < items.length; i++) {
    const it = items[i]!;
    let id: string | undefined;
    if (typeof it !== 'string') id = it.id;
    else if (firsts.includes(it.charCodeAt(0))) id = ids.find((x) => it.startsWith(x) && it.charCodeAt(x.length) === 9);
    if (id === undefined || !changed.has(id)) {
      items[kept++] = it;
      continue;
    }
    found.add(id);
    const t = changed.get(id);
    if (t && keep(t[2])) items[kept++] = fromTuple(t);
  }
  items.length = kept;
  if (few.rows.some((t) => !found.has(t[0]) && keep(t[2]))) return undefined;
  return { items, bad: [...early.bad.filter((b) => !changed.has(b.id)), ...few.bad] };
}
