import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tableSignature } from '../../model/table.js';
import { fromTuple, type BadRow, type Detail, type LeanRow, type Tuple } from './rows.js';

// The listing index's files as stored: their shapes, paths and version, and the read of the common case (the refs
// as the index last saw them). index.ts keeps them current.

/** Which rows a caller wants, judged on the stored status before a row is parsed. */
/** Which stored rows a read keeps, by status; `line`, the row as stored, lets a selective read skip it unparsed. */
export type StatusTest = (status: string, line?: string) => boolean;

// available_actions are stored as a bit mask derived under this table: another table, another index (its signature
// is data, so every bundle keys alike). The plain file adds the piped line's version (plain.ts plainKey).
// 12: a row's schedule carries `held` (why no worker will pick a queued task). 14: a detail row carries `spend`, each
// agent turn's usage record for `lazy usage`. 15: rows read from their commit's summary (summary.ts) have no detail
// until a read folds them (`thin`).
export const VERSION = `15.${tableSignature()}`;

/** The base file's first line; each further line is one row's Tuple, in creation order. */
export interface Header {
  version: string;
  /** Names this base: a delta written over another base is ignored. */
  gen: string;
  bad: BadRow[];
}
export interface DetailFile {
  version: string;
  rows: Record<string, Detail>;
}
/** Rows changed since the base was written: small, so a list after one comment rewrites kilobytes, not the base. */
export interface DeltaFile {
  version: string;
  base: string;
  /** sha1 of the for-each-ref text these rows were checked against: equal text, nothing to compare. */
  refs: string;
  rows: Tuple[];
  detail: Record<string, Detail>;
  bad: BadRow[];
  gone: string[];
  /** Rows here read from their commit's summary: their detail is not known yet (the detail file's is another tip's). */
  thin: string[];
}

export const indexPath = (lazyDir: string) => join(lazyDir, 'index.ndjson');
export const deltaPath = (lazyDir: string) => join(lazyDir, 'index-delta.json');
/** Past this many changed rows the base is rewritten and the delta emptied. */
export const DELTA_MAX = 2000;
/** Tasks read and folded at a time while building: a bounded heap, not 100k documents at once. */
export const CHUNK = 2000;

/** Listing order: creation time, ties by id. */
export const byCreation = (a: { created_at: string; id: string }, b: { created_at: string; id: string }) =>
  a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : a.id < b.id ? -1 : 1;
export const detailPath = (lazyDir: string) => join(lazyDir, 'index-detail.json');

export function readJson<T extends { version: string }>(path: string): T | undefined {
  try {
    const f = JSON.parse(readFileSync(path, 'utf8')) as T;
    return f.version === VERSION ? f : undefined;
  } catch {
    return undefined;
  }
}

/** A base row as stored (its line, parsed only when a caller wants the row), or a row read since. */
export type Stored = string | LeanRow;

/** A line's first four fields (id, tip, status, created_at): none of them ever needs a JSON escape. */
export function head(line: string): [string, string, string, string] {
  const a = line.indexOf('","');
  const b = line.indexOf('","', a + 3);
  const c = line.indexOf('","', b + 3);
  const d = line.indexOf('"', c + 3);
  return [line.slice(2, a), line.slice(a + 3, b), line.slice(b + 3, c), line.slice(c + 3, d)];
}
/** The tip alone, on every row when tips are compared: it follows the id, `["<id>","<tip>"`. */
export const tipOf = (v: Stored | undefined) => {
  if (typeof v !== 'string') return v?.tip;
  const at = v.indexOf('"', 2) + 3;
  return v.slice(at, v.indexOf('"', at));
};
export const statusOf = (v: Stored) => (typeof v === 'string' ? head(v)[2] : v.status);
export const rowOf = (v: Stored) => (typeof v === 'string' ? fromTuple(JSON.parse(v) as Tuple) : v);
export const keyOf = (v: Stored) => {
  if (typeof v !== 'string') return v;
  const [id, , , created_at] = head(v);
  return { id, created_at };
};

/** The base as stored: its rows' lines by id, in creation order (parsed only when a caller wants a row). */
export function readBase(lazyDir: string): { gen: string; lean: Map<string, Stored>; bad: Map<string, BadRow> } {
  const none = { gen: '', lean: new Map<string, Stored>(), bad: new Map<string, BadRow>() };
  try {
    const lines = readFileSync(indexPath(lazyDir), 'utf8').split('\n');
    const h = JSON.parse(lines[0]!) as Header;
    if (h.version !== VERSION) return none;
    const lean = new Map<string, Stored>();
    for (let i = 1; i < lines.length; i++) {
      const l = lines[i]!;
      if (l.startsWith('["')) lean.set(l.slice(2, l.indexOf('"', 2)), l.endsWith(',') ? l.slice(0, -1) : l);
    }
    return { gen: h.gen, lean, bad: new Map(h.bad.map((b) => [b.id, b])) };
  } catch {
    return none;
  }
}

/** The delta written over the base named `gen`; one over another base (a crash between a compaction's two writes) is not. */
export function deltaOver(lazyDir: string, gen: string): DeltaFile | undefined {
  const d = gen ? readJson<DeltaFile>(deltaPath(lazyDir)) : undefined;
  return d?.base === gen ? d : undefined;
}

export const emptyDelta = (gen: string): DeltaFile => ({
  version: VERSION,
  base: gen,
  refs: '',
  rows: [],
  detail: {},
  bad: [],
  gone: [],
  thin: [],
});

/**
 * The common case, the refs as the index last saw them: the base's rows in one JSON.parse, the
 * delta laid over them, no map of every row. Anything unexpected returns undefined: the full path decides.
 */
export function unchanged(lazyDir: string, refs: string, keep?: StatusTest, first?: number) {
  try {
    const d = readJson<DeltaFile>(deltaPath(lazyDir));
    if (!d || d.refs !== refs) return undefined;
    const text = readFileSync(indexPath(lazyDir), 'utf8');
    const nl = text.indexOf('\n');
    const h = JSON.parse(text.slice(0, nl)) as Header;
    if (h.version !== VERSION || !h.gen || h.gen !== d.base) return undefined;
    const over = new Map(d.rows.map((t) => [t[0], t]));
    const out = new Set([...d.gone, ...d.bad.map((b) => b.id)]);
    const rows: LeanRow[] = [];
    const add = (t: Tuple) => (!keep || keep(t[2])) && rows.push(fromTuple(t));
    const lay = (t: Tuple) => {
      const o = over.get(t[0]);
      if (o) over.delete(t[0]);
      if (!out.has(t[0])) add(o ?? t);
    };
    if (first === undefined) for (const t of JSON.parse(text.slice(nl + 1)) as Tuple[]) lay(t);
    // The base is in creation order: the first rows kept are the oldest, so the scan stops there. The
    // delta's rows left over (new tasks, or changed later ones) join them; the caller sorts and cuts.
    else
      for (let at = nl + 1; rows.length < first && at < text.length;) {
        const end = text.indexOf('\n', at);
        const line = text.slice(at, end < 0 ? text.length : end);
        at = end < 0 ? text.length : end + 1;
        if (line.startsWith('["') && (!keep || over.has(head(line)[0]) || keep(head(line)[2])))
          lay(JSON.parse(line.endsWith(',') ? line.slice(0, -1) : line) as Tuple);
      }
    for (const t of over.values()) add(t);
    const bad = new Map(h.bad.map((b) => [b.id, b]));
    for (const id of [...d.rows.map((t) => t[0]), ...d.gone]) bad.delete(id);
    for (const b of d.bad) bad.set(b.id, b);
    return { rows, bad: [...bad.values()] };
  } catch {
    return undefined;
  }
}
