import { readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { createHash, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { writeFileAtomic } from '../core/fsutil.js';
import { LazyError } from '../core/errors.js';
import { foldTask, type TaskView } from '../model/fold.js';
import {
  fromTuple,
  toDetail,
  toTuple,
  type BadRow,
  type Detail,
  type LeanRow,
  type Row,
  type Tuple,
} from './listing-rows.js';
import { tableSignature } from '../model/table.js';
import { parseRefTips, taskRefsText } from './refs.js';
import type { TaskReader } from './read.js';

export type { BadRow, LeanRow, Row } from './listing-rows.js';

// The listing index: a local, never-pushed cache of each task's summary keyed by its
// ref tip. Invariant: it is always rebuildable from refs/lazy/tasks/*; a row is
// trusted only while its tip still matches what one for-each-ref reports.
// Three files: the base (one line per row, compact tuples for what the table needs, parsed
// only for rows a list keeps), a small delta of rows changed since (so a list after one
// comment rewrites kilobytes), and the remaining fields, read only for --json, inbox and watch.

// available_actions are stored as a bit mask derived under this table: another table, another index.
const VERSION = `9.${tableSignature()}`;

/** The base file's first line; each further line is one row's Tuple, in creation order. */
interface Header {
  version: string;
  /** Names this base: a delta written over another base is ignored. */
  gen: string;
  bad: BadRow[];
}
interface DetailFile {
  version: string;
  rows: Record<string, Detail>;
}
/** Rows changed since the base was written: small, so a list after one comment rewrites kilobytes, not the base. */
interface DeltaFile {
  version: string;
  base: string;
  /** sha1 of the for-each-ref text these rows were checked against: equal text, nothing to compare. */
  refs: string;
  rows: Tuple[];
  detail: Record<string, Detail>;
  bad: BadRow[];
  gone: string[];
}

export const indexPath = (lazyDir: string) => join(lazyDir, 'index.ndjson');
const deltaPath = (lazyDir: string) => join(lazyDir, 'index-delta.json');
/** Past this many changed rows the base is rewritten and the delta emptied. */
const DELTA_MAX = 2000;
/** Tasks read and folded at a time while building: a bounded heap, not 100k documents at once. */
const CHUNK = 2000;

/** Listing order: creation time, ties by id. */
export const byCreation = (a: { created_at: string; id: string }, b: { created_at: string; id: string }) =>
  a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : a.id < b.id ? -1 : 1;
const detailPath = (lazyDir: string) => join(lazyDir, 'index-detail.json');

function readJson<T extends { version: string }>(path: string): T | undefined {
  try {
    const f = JSON.parse(readFileSync(path, 'utf8')) as T;
    return f.version === VERSION ? f : undefined;
  } catch {
    return undefined;
  }
}

/** A base row as stored (its line, parsed only when a caller wants the row), or a row read since. */
type Stored = string | LeanRow;

/** A line's first four fields (id, tip, status, created_at): none of them ever needs a JSON escape. */
function head(line: string): [string, string, string, string] {
  const a = line.indexOf('","');
  const b = line.indexOf('","', a + 3);
  const c = line.indexOf('","', b + 3);
  const d = line.indexOf('"', c + 3);
  return [line.slice(2, a), line.slice(a + 3, b), line.slice(b + 3, c), line.slice(c + 3, d)];
}
/** The tip alone, on every row when tips are compared: it follows the id, `["<id>","<tip>"`. */
const tipOf = (v: Stored | undefined) => {
  if (typeof v !== 'string') return v?.tip;
  const at = v.indexOf('"', 2) + 3;
  return v.slice(at, v.indexOf('"', at));
};
const statusOf = (v: Stored) => (typeof v === 'string' ? head(v)[2] : v.status);
const rowOf = (v: Stored) => (typeof v === 'string' ? fromTuple(JSON.parse(v) as Tuple) : v);
const keyOf = (v: Stored) => {
  if (typeof v !== 'string') return v;
  const [id, , , created_at] = head(v);
  return { id, created_at };
};

interface Cache {
  gen: string;
  /** The base's rows with the delta applied: in the base's creation order, rows new since then after. */
  lean: Map<string, Stored>;
  bad: Map<string, BadRow>;
  delta: DeltaFile;
  detail?: Record<string, Detail>;
  /** Rows load dropped because their detail was for another tip: the fingerprint no longer vouches. */
  dropped: boolean;
}

const emptyDelta = (gen: string): DeltaFile => ({
  version: VERSION,
  base: gen,
  refs: '',
  rows: [],
  detail: {},
  bad: [],
  gone: [],
});

function readBase(lazyDir: string): Pick<Cache, 'gen' | 'lean' | 'bad'> {
  const none = { gen: '', lean: new Map(), bad: new Map() };
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

function load(lazyDir: string, withDetail: boolean): Cache {
  const base = readBase(lazyDir);
  const d = readJson<DeltaFile>(deltaPath(lazyDir));
  // A delta over another base (a crash between the two writes of a compaction) is ignored.
  const delta = d && d.base === base.gen && base.gen ? d : emptyDelta(base.gen);
  const { lean, bad } = base;
  for (const t of delta.rows) (lean.set(t[0], fromTuple(t)), bad.delete(t[0]));
  for (const b of delta.bad) (lean.delete(b.id), bad.set(b.id, b));
  for (const id of delta.gone) (lean.delete(id), bad.delete(id));
  const cache: Cache = { ...base, delta, dropped: false };
  if (!withDetail) return cache;
  const detail = Object.assign(readJson<DetailFile>(detailPath(lazyDir))?.rows ?? {}, delta.detail);
  // A detail row for another tip is stale: forget the lean row too, so it is re-read.
  for (const [id, row] of lean)
    if (detail[id]?.tip !== tipOf(row)) {
      lean.delete(id);
      cache.dropped = true;
    }
  cache.detail = detail;
  return cache;
}

/** Ids the cache last saw (doctor's evidence that a task existed before its ref vanished). */
export const indexedIds = (lazyDir: string): string[] => {
  const c = load(lazyDir, false);
  return [...c.lean.keys(), ...c.bad.keys()];
};

/** What one refresh changed: rows re-read (with their detail), rows whose ref is gone. */
interface Changes {
  fresh: Map<string, Detail | null>;
  gone: string[];
}

/** Small changes go to the delta; past DELTA_MAX (or with no base yet) the base is rewritten. */
async function save(lazyDir: string, cache: Cache, ch: Changes, refs: string): Promise<void> {
  const d = cache.delta;
  const rows = new Map(d.rows.map((t) => [t[0], t]));
  const bad = new Map(d.bad.map((b) => [b.id, b]));
  const gone = new Set(d.gone);
  for (const [id, det] of ch.fresh) {
    (rows.delete(id), bad.delete(id), gone.delete(id), delete d.detail[id]);
    const row = cache.lean.get(id);
    if (det && row) (rows.set(id, toTuple(rowOf(row))), (d.detail[id] = det));
    else if (cache.bad.has(id)) bad.set(id, cache.bad.get(id)!);
  }
  for (const id of ch.gone) (rows.delete(id), bad.delete(id), gone.add(id), delete d.detail[id]);
  if (cache.gen && rows.size + bad.size + gone.size <= DELTA_MAX) {
    const next: DeltaFile = { ...d, refs, rows: [...rows.values()], bad: [...bad.values()], gone: [...gone] };
    return writeFileAtomic(deltaPath(lazyDir), JSON.stringify(next));
  }
  await compact(lazyDir, cache, ch, refs);
}

async function compact(lazyDir: string, cache: Cache, ch: Changes, refs: string): Promise<void> {
  const all = cache.detail ?? Object.assign(readJson<DetailFile>(detailPath(lazyDir))?.rows ?? {}, cache.delta.detail);
  const detail: Record<string, Detail> = {};
  for (const id of cache.lean.keys()) {
    const det = ch.fresh.get(id) ?? all[id];
    if (det) detail[id] = det;
  }
  const gen = randomUUID();
  // Detail first, then the base, then an empty delta naming it: a crash between leaves rows the next list re-reads.
  await writeFileAtomic(detailPath(lazyDir), JSON.stringify({ version: VERSION, rows: detail } satisfies DetailFile));
  const keyed = [...cache.lean.values()].map((v) => ({ v, k: keyOf(v) }));
  keyed.sort((a, b) => byCreation(a.k, b.k));
  const header: Header = { version: VERSION, gen, bad: [...cache.bad.values()] };
  const lines = keyed.map(({ v }) => (typeof v === 'string' ? v : JSON.stringify(toTuple(v))));
  // After the header the file is one JSON array, a row per line: parsed whole, or line by line.
  await writeFileAtomic(indexPath(lazyDir), `${JSON.stringify(header)}\n[\n${lines.join(',\n')}\n]\n`);
  await writeFileAtomic(deltaPath(lazyDir), JSON.stringify({ ...emptyDelta(gen), refs }));
}

export interface Refreshed<R> {
  rows: R[];
  bad: BadRow[];
  reread: number;
  /** A task's prompt, when the detail rows were read. */
  prompt?: (id: string) => string | null;
}

/** Which rows a caller wants, judged on the stored status before a row is parsed. */
export type StatusTest = (status: string) => boolean;

/**
 * One for-each-ref; when its text is what the index was last checked against, the rows are
 * current as stored. Otherwise only tasks whose tip moved are re-read.
 */
export async function refreshIndex(
  cwd: string,
  lazyDir: string,
  reader: TaskReader,
  detail?: false,
  keep?: StatusTest,
  selective?: boolean,
  first?: number,
): Promise<Refreshed<LeanRow>>;
export async function refreshIndex(
  cwd: string,
  lazyDir: string,
  reader: TaskReader,
  detail: true,
  keep?: StatusTest,
  selective?: boolean,
  first?: number,
): Promise<Refreshed<Row>>;
export async function refreshIndex(
  cwd: string,
  lazyDir: string,
  reader: TaskReader,
  detail = false,
  keep?: StatusTest,
  selective = false,
  /** Only the first rows kept in creation order are wanted (a --limit with nothing else to filter). */
  first?: number,
): Promise<Refreshed<LeanRow | Row>> {
  const text = await taskRefsText(cwd);
  const refs = createHash('sha1').update(text).digest('hex');
  const quick = detail || selective ? undefined : unchanged(lazyDir, refs, keep, first);
  if (quick) return { ...quick, reread: 0 };
  let cache = load(lazyDir, detail);
  let reread = 0;
  if (cache.delta.refs !== refs || cache.dropped) reread = await catchUp(lazyDir, cache, reader, text, refs);
  try {
    return { ...rowsOf(cache, detail, keep, selective), reread };
  } catch {
    // A damaged line: the cache is only a cache. Start it again from the refs.
    await rmIndex(lazyDir);
    cache = load(lazyDir, detail);
    reread = await catchUp(lazyDir, cache, reader, text, refs);
    return { ...rowsOf(cache, detail, keep, selective), reread };
  }
}

/**
 * The common case, the refs as the index last saw them: the base's rows in one JSON.parse, the
 * delta laid over them, no map of every row. Anything unexpected returns undefined: the full path decides.
 */
function unchanged(lazyDir: string, refs: string, keep?: StatusTest, first?: number) {
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

const rmIndex = (lazyDir: string) =>
  Promise.all([indexPath, deltaPath, detailPath].map((p) => rm(p(lazyDir), { force: true })));

/** Re-reads the tasks whose tip differs from the cache's, forgets vanished ones, saves; how many were read. */
async function catchUp(lazyDir: string, cache: Cache, reader: TaskReader, text: string, refs: string) {
  const tips = parseRefTips(text);
  const stale = tips.filter((r) => (tipOf(cache.lean.get(r.id)) ?? cache.bad.get(r.id)?.tip) !== r.tip);
  const live = new Set(tips.map((r) => r.id));
  const ch: Changes = {
    fresh: new Map(),
    gone: [...cache.lean.keys(), ...cache.bad.keys()].filter((id) => !live.has(id)),
  };
  for (let i = 0; i < stale.length; i += CHUNK) {
    const part = stale.slice(i, i + CHUNK);
    const read = await reader.readMany(part);
    for (const r of part) {
      const res = read.get(r.id)!;
      cache.lean.delete(r.id);
      cache.bad.delete(r.id);
      if (res instanceof LazyError) {
        const error = { code: res.code, message: res.message, details: res.details };
        cache.bad.set(r.id, { id: r.id, tip: r.tip, error });
        ch.fresh.set(r.id, null);
        continue;
      }
      const v = foldTask(res.docs);
      cache.lean.set(r.id, leanOf(v));
      ch.fresh.set(r.id, toDetail(v));
      if (cache.detail) cache.detail[r.id] = ch.fresh.get(r.id)!;
    }
  }
  for (const id of ch.gone) (cache.lean.delete(id), cache.bad.delete(id));
  await save(lazyDir, cache, ch, refs).catch(() => {
    /* a read-only .git still lists */
  });
  return stale.length;
}

function rowsOf(cache: Cache, detail: boolean, keep?: StatusTest, selective = false) {
  const stored = [...cache.lean.values()];
  // Most rows kept: one JSON.parse of every line is cheaper than one per line. Few kept
  // (an explicit --status): each line's status is read in place and only those rows parsed.
  const parsed = selective ? undefined : parseLines(stored.filter((v) => typeof v === 'string'));
  let at = 0;
  const rows: (LeanRow | Row)[] = [];
  for (const v of stored) {
    const row = typeof v !== 'string' ? v : parsed ? parsed[at++]! : keep && !keep(statusOf(v)) ? null : rowOf(v);
    if (!row || (keep && !keep(row.status))) continue;
    rows.push(detail ? { ...row, ...withoutTip(cache.detail![row.id]!) } : row);
  }
  const prompt = detail ? (id: string) => cache.detail![id]?.prompt ?? null : undefined;
  return { rows, bad: [...cache.bad.values()], prompt };
}

const parseLines = (lines: string[]) => (JSON.parse(`[${lines.join(',')}]`) as Tuple[]).map(fromTuple);

const leanOf = (v: LeanRow): LeanRow => fromTuple(toTuple(v));
const withoutTip = ({ tip: _t, prompt: _p, ...rest }: Detail) => rest;

/** Writes fresh rows for tasks a caller already read (a pull), so the next list skips them. */
export async function primeIndex(lazyDir: string, views: Iterable<TaskView>): Promise<void> {
  const cache = load(lazyDir, false);
  const ch: Changes = { fresh: new Map(), gone: [] };
  for (const v of views) {
    cache.lean.set(v.id, leanOf(v));
    cache.bad.delete(v.id);
    ch.fresh.set(v.id, toDetail(v));
  }
  // No fingerprint: the next list compares tips, and finds these rows current.
  if (ch.fresh.size) await save(lazyDir, cache, ch, '').catch(() => {});
}
