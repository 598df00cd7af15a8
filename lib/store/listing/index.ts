import { writeFileAtomic } from '../../core/fsutil.js';
import { LazyError } from '../../core/errors.js';
import { foldTask, type TaskView } from '../../model/fold.js';
import {
  asRow,
  badRow,
  leanOf,
  fromTuple,
  toDetail,
  toTuple,
  type BadRow,
  type Detail,
  type LeanRow,
  type Row,
  type Tuple,
} from './rows.js';
import {
  byCreation,
  CHUNK,
  DELTA_MAX,
  deltaPath,
  indexPath,
  readJson,
  rowOf,
  statusOf,
  tipOf,
  unchanged,
  type DeltaFile,
  type StatusTest,
} from './files.js';
import { parseRefTips } from '../refs.js';
import { firstRows, patch, plainOfBase, plainRows, type Few, type PlainItem, type PlainLines } from './plain.js';
import { refChanges, refsLikelyMoved, refsNow, storedRefs, type RefsNow, type StoredRefs } from './refs.js';
import type { TaskReader } from '../read.js';
import { spentOf, type Spent } from './spend.js';
import { THIN, tipSummaries, worthSummaries } from './summary.js';
import { compact, load, rmIndex, save, type Cache, type Changes } from './cache.js';

export type { BadRow, LeanRow, Row } from './rows.js';
export { byCreation, firstRows, indexPath, type PlainItem, type PlainLines, type StatusTest };
export { indexedIds } from './ids.js';

// The listing index: a local, never-pushed cache of each task's summary keyed by its
// ref tip. Invariant: it is always rebuildable from refs/lazy/tasks/*; a row is
// trusted only while its tip still matches what one for-each-ref reports.
// Its files: the base (one line per row, compact tuples for what the table needs, parsed
// only for rows a list keeps), a small delta of rows changed since (so a list after one
// comment rewrites kilobytes), the remaining fields, read only for --json, inbox and watch,
// the plain file (plain.ts: the lines a piped list prints) and the for-each-ref text
// the delta is current for (refs.ts: after one comment, only the refs between the first
// and last line that differ are read). Many rows to read and no detail wanted (a clone's first list): the rows come
// from each tip commit's summary trailer (summary.ts: one cat-file of the tip commits), and only tasks without one
// are folded.

export interface Refreshed<R> {
  rows: R[];
  bad: BadRow[];
  /** Tasks read and folded; `summarized`, rows taken from their tip commit's summary instead. */
  reread: number;
  summarized?: number;
  /** A task's prompt, when the detail rows were read; the tasks agents worked on (spend.ts), when at hand. */
  prompt?: (id: string) => string | null;
  spent?: (lazyDir: string) => Spent[] | undefined;
}

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
  const now = await refsNow(cwd, lazyDir);
  try {
    const few = await catchUpFew(lazyDir, reader, now);
    let reread = few ? few.rows.length + few.bad.length : 0;
    const quick = detail || selective ? undefined : unchanged(lazyDir, now.fingerprint, keep, first);
    if (quick) return { ...quick, reread };
    let cache = load(lazyDir, detail);
    let got = { read: 0, summarized: 0 };
    if (cache.delta.refs !== now.fingerprint || cache.dropped) got = await catchUp(cwd, lazyDir, cache, reader, now);
    try {
      return { ...rowsOf(cache, detail, keep, selective), reread: reread + got.read, summarized: got.summarized };
    } catch {
      // A damaged line: the cache is only a cache. Start it again from the refs.
      await rmIndex(lazyDir);
      cache = load(lazyDir, detail);
      got = await catchUp(cwd, lazyDir, cache, reader, now);
      return { ...rowsOf(cache, detail, keep, selective), reread: got.read, summarized: got.summarized };
    }
  } finally {
    now.discard();
  }
}

/**
 * When only a few refs moved since the stored for-each-ref text, reads those tasks and lays them into the delta,
 * without loading the base; undefined when the delta is current, no text is stored for it, too much moved, or
 * the delta would outgrow itself (the full compare then decides).
 */
async function catchUpFew(
  lazyDir: string,
  reader: TaskReader,
  now: RefsNow,
  known?: StoredRefs,
): Promise<Few | undefined> {
  const d = readJson<DeltaFile>(deltaPath(lazyDir));
  // Current already? Against the stored text a byte compare says so; only without it is the text hashed here.
  if (!d || (known?.fingerprint === d.refs ? now.same(known) : d.refs === now.fingerprint)) return undefined;
  const ch = refChanges(lazyDir, d.refs, now, known);
  if (!ch) return undefined;
  const rows = new Map(d.rows.map((t) => [t[0], t]));
  const bad = new Map(d.bad.map((b) => [b.id, b]));
  const gone = new Set(d.gone);
  const few: Few = { from: d.refs, rows: [], bad: [], gone: ch.gone };
  const thin = new Set(d.thin);
  const forget = (id: string) => (
    rows.delete(id),
    bad.delete(id),
    gone.delete(id),
    thin.delete(id),
    delete d.detail[id]
  );
  const reading = reader.readMany(ch.moved);
  void now.fingerprint; // hashed while git reads the tasks
  const read = await reading;
  for (const r of ch.moved) {
    const res = read.get(r.id)!;
    forget(r.id);
    if (res instanceof LazyError) few.bad.push(badRow(r, res));
    else {
      const v = foldTask(res.docs);
      few.rows.push(toTuple(v));
      d.detail[r.id] = toDetail(v);
    }
  }
  for (const t of few.rows) rows.set(t[0], t);
  for (const b of few.bad) bad.set(b.id, b);
  for (const id of ch.gone) (forget(id), gone.add(id));
  if (rows.size + bad.size + gone.size > DELTA_MAX) return undefined;
  const next: DeltaFile = {
    ...d,
    refs: now.fingerprint,
    rows: [...rows.values()],
    bad: [...bad.values()],
    gone: [...gone],
    thin: [...thin],
  };
  try {
    await writeFileAtomic(deltaPath(lazyDir), JSON.stringify(next));
    await now.adopt(lazyDir);
  } catch {
    return undefined; // a read-only .git: the full path lists without saving
  }
  return few;
}

/**
 * The rows `keep` wants, as the plain file holds them (the `piped` lines, or rows whose status cell is live), brought
 * current first; undefined when the index cannot be written (a read-only .git): the caller takes the full path.
 */
export async function refreshPlain(
  cwd: string,
  lazyDir: string,
  reader: TaskReader,
  keep: StatusTest,
  piped: PlainLines,
) {
  const pending = refsNow(cwd, lazyDir);
  const overlay = (fingerprint?: string) => {
    const d = readJson<DeltaFile>(deltaPath(lazyDir));
    if (!d || (fingerprint !== undefined && d.refs !== fingerprint)) return undefined;
    const out = new Set([...d.gone, ...d.bad.map((b) => b.id)]);
    const got = plainRows(lazyDir, { gen: d.base, rows: d.rows, out }, keep, piped);
    return got && { ...got, bad: [...got.bad, ...d.bad], refs: d.refs };
  };
  // The rows as the index holds them are read while git lists the refs; they stand if the refs are as it saw them.
  const early = overlay();
  const stored = early && storedRefs(lazyDir, early.refs);
  // Refs that moved mean tasks to read: the reader's git starts before the refs are even known.
  if (early && refsLikelyMoved(lazyDir)) reader.objects.warm();
  const now = await pending;
  try {
    if (early && (stored ? now.same(stored) : early.refs === now.fingerprint)) return early;
    const few = await catchUpFew(lazyDir, reader, now, stored);
    const patched = few && early?.refs === few.from && patch(early, few, keep);
    if (patched) return patched;
    let got = overlay(now.fingerprint);
    if (got) return got;
    // Behind: bring the index current. Still no plain file for this base (another caller rewrote the base, an older
    // lazy or another line wrote it, a crash came between the base and it): write it from the base. Still a row it
    // cannot place: write the base whole, which writes it.
    let cache = load(lazyDir, false);
    if (cache.delta.refs !== now.fingerprint || cache.dropped) await catchUp(cwd, lazyDir, cache, reader, now, piped);
    if ((got = overlay(now.fingerprint))) return got;
    if ((await plainOfBase(lazyDir, piped)) && (got = overlay(now.fingerprint))) return got;
    cache = load(lazyDir, false);
    await compact(lazyDir, cache, { fresh: new Map(), gone: [] }, now.fingerprint, piped)
      .then(() => now.adopt(lazyDir))
      .catch(() => {});
    return overlay(now.fingerprint);
  } finally {
    now.discard();
  }
}

/**
 * Re-reads the tasks whose tip differs from the cache's, forgets vanished ones, saves; how many were folded, and how
 * many rows came from their commit's summary (many stale rows and no detail wanted: one for-each-ref reads them).
 */
async function catchUp(
  cwd: string,
  lazyDir: string,
  cache: Cache,
  reader: TaskReader,
  now: RefsNow,
  piped?: PlainLines,
) {
  const refs = now.fingerprint;
  const tips = parseRefTips(now.text);
  let stale = tips.filter((r) => (tipOf(cache.lean.get(r.id)) ?? cache.bad.get(r.id)?.tip) !== r.tip);
  const live = new Set(tips.map((r) => r.id));
  const ch: Changes = {
    fresh: new Map(),
    gone: [...cache.lean.keys(), ...cache.bad.keys()].filter((id) => !live.has(id)),
  };
  // A few tasks fold as fast, and leave their detail too.
  const worth = !cache.detail && worthSummaries(stale.length, tips.length);
  const summed = worth ? await tipSummaries(cwd, stale) : undefined;
  if (summed) {
    for (const [id, row] of summed) (cache.lean.set(id, row), cache.bad.delete(id), ch.fresh.set(id, THIN));
    stale = stale.filter((r) => !summed.has(r.id));
  }
  for (let i = 0; i < stale.length; i += CHUNK) {
    const part = stale.slice(i, i + CHUNK);
    const read = await reader.readMany(part);
    for (const r of part) {
      const res = read.get(r.id)!;
      cache.lean.delete(r.id);
      cache.bad.delete(r.id);
      if (res instanceof LazyError) {
        cache.bad.set(r.id, badRow(r, res));
        ch.fresh.set(r.id, null);
        continue;
      }
      const v = foldTask(res.docs);
      cache.lean.set(r.id, leanOf(v));
      ch.fresh.set(r.id, toDetail(v));
      if (cache.detail) cache.detail[r.id] = ch.fresh.get(r.id) as Detail;
    }
  }
  for (const id of ch.gone) (cache.lean.delete(id), cache.bad.delete(id));
  await save(lazyDir, cache, ch, refs, piped)
    .then(() => now.adopt(lazyDir))
    .catch(() => {
      /* a read-only .git still lists */
    });
  return { read: stale.length, summarized: summed?.size ?? 0 };
}

function rowsOf(cache: Cache, detail: boolean, keep?: StatusTest, selective = false) {
  const stored = [...cache.lean.values()];
  // Most rows kept: one JSON.parse of every line is cheaper than one per line. Few kept
  // (an explicit --status): each line's status is read in place and only those rows parsed.
  const parsed = selective ? undefined : parseLines(stored.filter((v) => typeof v === 'string'));
  let at = 0;
  const rows: (LeanRow | Row)[] = [];
  for (const v of stored) {
    const row = typeof v !== 'string' ? v : parsed ? parsed[at++]! : keep && !keep(statusOf(v), v) ? null : rowOf(v);
    if (!row || (keep && !keep(row.status))) continue;
    rows.push(detail ? { ...row, ...asRow(cache.detail![row.id]!) } : row);
  }
  const prompt = detail ? (id: string) => cache.detail![id]?.prompt ?? null : undefined;
  return { rows, bad: [...cache.bad.values()], prompt, spent: (dir: string) => spentOf(dir, cache) };
}

const parseLines = (lines: string[]) => (JSON.parse(`[${lines.join(',')}]`) as Tuple[]).map(fromTuple);

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
