import { rm } from 'node:fs/promises';
import { nodeCrypto } from '../../core/crypto.js';
import { writeFileAtomic } from '../../core/fsutil.js';
import { fromTuple, toTuple, type BadRow, type Detail } from './rows.js';
import {
  byCreation,
  DELTA_MAX,
  deltaOver,
  deltaPath,
  detailPath,
  emptyDelta,
  indexPath,
  keyOf,
  readBase,
  readJson,
  rowOf,
  tipOf,
  VERSION,
  type DeltaFile,
  type DetailFile,
  type Header,
  type Stored,
} from './files.js';
import { plainText, writePlain, type PlainLines } from './plain.js';
import { spendPath, writeDetail } from './spend.js';
import { THIN } from './summary.js';

// The listing index's files loaded as one cache (the base with the delta laid over it, the detail rows when a read
// wants them) and saved back: small changes to the delta, larger ones compacted into a new base. index.ts decides
// what to read again; this file keeps what it read.

export interface Cache {
  gen: string;
  /** The base's rows with the delta applied: in the base's creation order, rows new since then after. */
  lean: Map<string, Stored>;
  bad: Map<string, BadRow>;
  delta: DeltaFile;
  detail?: Record<string, Detail>;
  /** Rows load dropped because their detail was for another tip: the fingerprint no longer vouches. */
  dropped: boolean;
}

export function load(lazyDir: string, withDetail: boolean): Cache {
  const base = readBase(lazyDir);
  const delta = deltaOver(lazyDir, base.gen) ?? emptyDelta(base.gen);
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

/**
 * What one refresh changed: rows re-read (with their detail; THIN for a row read from its commit's summary, whose
 * detail is folded when a read wants it; null when unreadable), rows whose ref is gone.
 */
export interface Changes {
  fresh: Map<string, Detail | typeof THIN | null>;
  gone: string[];
}

/**
 * Small changes go to the delta; past DELTA_MAX (or with no base yet) the base is rewritten, with the plain file when
 * the caller has its lines (`piped`).
 */
export async function save(
  lazyDir: string,
  cache: Cache,
  ch: Changes,
  refs: string,
  piped?: PlainLines,
): Promise<void> {
  // Too many changes for the delta whatever it held (a first list): straight to a new base.
  if (!cache.gen || ch.fresh.size + ch.gone.length > DELTA_MAX) return compact(lazyDir, cache, ch, refs, piped);
  const d = cache.delta;
  const rows = new Map(d.rows.map((t) => [t[0], t]));
  const bad = new Map(d.bad.map((b) => [b.id, b]));
  const gone = new Set(d.gone);
  const thin = new Set(d.thin);
  for (const [id, det] of ch.fresh) {
    (rows.delete(id), bad.delete(id), gone.delete(id), thin.delete(id), delete d.detail[id]);
    const row = cache.lean.get(id);
    if (det && row) (rows.set(id, toTuple(rowOf(row))), det === THIN ? thin.add(id) : (d.detail[id] = det));
    else if (cache.bad.has(id)) bad.set(id, cache.bad.get(id)!);
  }
  for (const id of ch.gone) (rows.delete(id), bad.delete(id), gone.add(id), thin.delete(id), delete d.detail[id]);
  if (cache.gen && rows.size + bad.size + gone.size <= DELTA_MAX) {
    const next: DeltaFile = {
      ...d,
      refs,
      rows: [...rows.values()],
      bad: [...bad.values()],
      gone: [...gone],
      thin: [...thin],
    };
    return writeFileAtomic(deltaPath(lazyDir), JSON.stringify(next));
  }
  await compact(lazyDir, cache, ch, refs, piped);
}

export async function compact(
  lazyDir: string,
  cache: Cache,
  ch: Changes,
  refs: string,
  piped?: PlainLines,
): Promise<void> {
  const all = cache.detail ?? Object.assign(readJson<DetailFile>(detailPath(lazyDir))?.rows ?? {}, cache.delta.detail);
  const detail: Record<string, Detail> = {};
  // Only a row's own tip's detail is kept: a row read from its summary has none until a read folds it.
  const thin: string[] = [];
  for (const [id, v] of cache.lean) {
    const det = ch.fresh.has(id) ? ch.fresh.get(id) : all[id];
    if (det && det !== THIN && det.tip === tipOf(v)) detail[id] = det;
    else thin.push(id);
  }
  const gen = nodeCrypto().randomUUID();
  // Detail first, then the base, then an empty delta naming it: a crash between leaves rows the next list re-reads.
  await writeDetail(lazyDir, gen, detail, thin);
  const keyed = [...cache.lean.values()].map((v) => ({ v, k: keyOf(v) }));
  keyed.sort((a, b) => byCreation(a.k, b.k));
  const header: Header = { version: VERSION, gen, bad: [...cache.bad.values()] };
  const lines = keyed.map(({ v }) => (typeof v === 'string' ? v : JSON.stringify(toTuple(v))));
  if (piped)
    await writePlain(
      lazyDir,
      plainText(
        gen,
        keyed.map(({ v }) => rowOf(v)),
        header.bad,
        piped,
      ),
    );
  // After the header the file is one JSON array, a row per line: parsed whole, or line by line.
  await writeFileAtomic(indexPath(lazyDir), `${JSON.stringify(header)}\n[\n${lines.join(',\n')}\n]\n`);
  await writeFileAtomic(deltaPath(lazyDir), JSON.stringify({ ...emptyDelta(gen), refs }));
}

export const rmIndex = (lazyDir: string) =>
  Promise.all([indexPath, deltaPath, detailPath, spendPath].map((p) => rm(p(lazyDir), { force: true })));
