import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../../core/fsutil.js';
import { LazyError } from '../../core/errors.js';
import { VERSION } from '../listing/files.js';
import { foldTask } from '../../model/fold.js';
import type { TaskReader } from '../read.js';
import {
  asRow,
  leanOf,
  badRow,
  fromTuple,
  toDetail,
  toTuple,
  type BadRow,
  type LeanRow,
  type Row,
  type Tuple,
} from '../listing/rows.js';
import { archiveRef } from '../../core/names.js';
import { readAllArchived, shardOf } from './map.js';

// The rows of archived tasks, for `list --all` and `list --status complete|abandoned` (the default list never reads
// the archive). Each shard's map names the task's tip and the status it was archived in, so a status filter skips the
// others unread; the rows themselves are folded from the documents at those tips, as the listing index's are, and
// kept (the compact ones a table needs) in a local cache keyed by tip, .git/lazy/archive-rows.json, under the listing
// index's version: an archived task does not change at a given tip, so a list --all folds each one once per clone (and
// not at all for what lazy archive took from the index here).

interface Cached {
  version: string;
  rows: Record<string, Tuple>;
}
const cachePath = (lazyDir: string) => join(lazyDir, 'archive-rows.json');

function loadCache(lazyDir: string): Record<string, Tuple> {
  try {
    const c = JSON.parse(readFileSync(cachePath(lazyDir), 'utf8')) as Cached;
    return c.version === VERSION ? c.rows : {};
  } catch {
    return {};
  }
}

/** Adds rows to the cache (lazy archive hands over the index's rows of what it archived). */
export async function cacheArchivedRows(lazyDir: string, rows: LeanRow[]): Promise<void> {
  if (!rows.length) return;
  const cached = loadCache(lazyDir);
  for (const r of rows) cached[r.id] = toTuple(r);
  const doc: Cached = { version: VERSION, rows: cached };
  await writeFileAtomic(cachePath(lazyDir), JSON.stringify(doc)).catch(() => {
    /* a read-only .git: the next list --all folds them again */
  });
}

const CHUNK = 2000;

export async function archivedRows(
  lazyDir: string,
  reader: TaskReader,
  /** Ids with a live ref: the live row is the task's (a reopened task stays in a map until the next archive). */
  live: Set<string>,
  keep: (status: string) => boolean,
  detail: boolean,
): Promise<{ rows: (LeanRow | Row)[]; bad: BadRow[] }> {
  const all = await readAllArchived(reader.objects);
  let wanted = [...all.values()].filter((a) => !live.has(a.id) && keep(a.status));
  const rows: (LeanRow | Row)[] = [];
  const bad: BadRow[] = [];
  const fresh: LeanRow[] = [];
  if (!detail) {
    const cached = loadCache(lazyDir);
    const hit = (a: { id: string; tip: string }) => cached[a.id]?.[1] === a.tip;
    for (const a of wanted) if (hit(a)) rows.push(fromTuple(cached[a.id]!));
    wanted = wanted.filter((a) => !hit(a));
  }
  for (let i = 0; i < wanted.length; i += CHUNK) {
    const part = wanted.slice(i, i + CHUNK).map((a) => ({ id: a.id, tip: a.tip, ref: archiveRef(shardOf(a.id)) }));
    const read = await reader.readMany(part);
    for (const a of part) {
      const r = read.get(a.id)!;
      if (r instanceof LazyError) {
        bad.push(badRow(a, r));
        continue;
      }
      const v = foldTask(r.docs);
      if (!keep(v.status)) continue;
      const lean = leanOf(v);
      fresh.push(lean);
      rows.push(detail ? { ...lean, ...asRow(toDetail(v)) } : lean);
    }
  }
  await cacheArchivedRows(lazyDir, fresh);
  return { rows, bad };
}
