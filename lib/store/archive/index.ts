import { git } from '../../core/git.js';
import { now, sleep } from '../../core/clock.js';
import { contention, LazyError } from '../../core/errors.js';
import { foldTask } from '../../model/fold.js';
import { isTerminal, type Status } from '../../model/status.js';
import { refreshIndex } from '../listing/index.js';
import { listTaskRefs } from '../refs.js';
import type { Store } from '../store.js';
import { ObjectWriter } from '../writer.js';
import { archivedIdsFile, saveArchivedIds } from './ids.js';
import { cacheArchivedRows } from './rows.js';
import { fromTuple, toTuple, type LeanRow } from '../listing/rows.js';
import { archiveTips, readMapAt, shardOf, type ArchiveMap } from './map.js';
import { archiveRef } from '../../core/names.js';
import { commitTransaction, writeShardCommit, type ShardWrite } from './write.js';

export { archivedOne, archivedByPrefix, readAllArchived, archiveTips, readMapAt, shardOf, SHARDS } from './map.js';
export type { Archived, ArchiveMap } from './map.js';
export { commitTransaction, writeShardCommit, type Committed, type ShardWrite, type Transaction } from './write.js';

// lazy archive: finished tasks (complete, abandoned) whose last change is older than archive.after_days move out of
// refs/lazy/tasks/* into refs/lazy/archive/<shard>, so every fetch advertises what is open, not what is past. Which
// tasks may be due comes from the listing index (kept current against the refs); the documents of those candidates,
// folded, decide; the transaction's expected old values are what keeps a task that changed meanwhile live.

export const DEFAULT_ARCHIVE_DAYS = 30;
const ATTEMPTS = 5;
const LOCKED_WAIT_MS = 100;
const DAY_MS = 86_400_000;

export interface ArchiveOutcome {
  /** Ids moved into the archive by this call. */
  archived: string[];
  /** Ids dropped from the archive map because a live ref holds their archived history (reopened, changed). */
  unarchived: string[];
  /** The shards whose archive ref moved. */
  shards: string[];
  older_than_days: number;
}

/** Archives every finished task whose last change is older than `days`, and forgets entries a live ref took back. */
export async function archiveDue(store: Store, days: number): Promise<ArchiveOutcome> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const plan = await planArchive(store, days);
    if (!plan.writes.length) return { archived: [], unarchived: [], shards: [], older_than_days: days };
    const { sig } = await store.ctx();
    const w = new ObjectWriter(store.repo.commonDir);
    const shards = [];
    for (const s of plan.writes) shards.push({ shard: s.shard, old: s.old, next: await writeShardCommit(w, s, sig) });
    const reason = `lazy: archive ${plan.due.length} task(s)`;
    const t = { shards, deletes: plan.due, verifies: plan.dropped };
    const done = await commitTransaction(store.repo.cwd, t, reason);
    if (done === 'done') {
      await saveArchivedIds(store.repo.lazyDir, store.reader.objects);
      await cacheArchivedRows(store.repo.lazyDir, plan.rows);
      return {
        archived: plan.due.map((d) => d.id).sort(),
        unarchived: plan.dropped.map((d) => d.id).sort(),
        shards: shards.map((s) => s.shard).sort(),
        older_than_days: days,
      };
    }
    // A task or an archive ref moved under us: read again; a task changed meanwhile is no longer due. Another git
    // process writing packed refs: wait a moment first.
    if (done === 'locked') await sleep(LOCKED_WAIT_MS * (attempt + 1));
  }
  throw contention('the tasks or the archive kept changing under lazy archive; try again', {});
}

interface Plan {
  due: { id: string; tip: string; status: string }[];
  /** The folded rows of the due tasks: list --all shows them without folding them again. */
  rows: LeanRow[];
  /** Entries a live ref took back, with the live tip the transaction verifies. */
  dropped: { id: string; tip: string }[];
  writes: ShardWrite[];
}

async function planArchive(store: Store, days: number): Promise<Plan> {
  const { cwd, lazyDir } = store.repo;
  const cutoff = new Date(now() - days * DAY_MS).toISOString();
  const [{ rows }, live, tips] = await Promise.all([
    refreshIndex(cwd, lazyDir, store.reader, false, (s) => isTerminal(s as Status)),
    listTaskRefs(cwd),
    archiveTips(cwd),
  ]);
  const { due, rows: dueRows } = await foldDue(
    store,
    rows.filter((r) => isTerminal(r.status) && r.updated_at < cutoff),
    cutoff,
  );
  const liveTip = new Map(live.map((r) => [r.id, r.tip]));
  // Only shards that may hold a live id (the archived-ids file says which; without it, all) or take a due one are
  // read: a push with nothing due reads no map. A stale file only delays forgetting an entry a live ref shadows.
  const hint = archivedIdsFile(lazyDir);
  const wanted = new Set(due.map((d) => shardOf(d.id)));
  for (const id of hint ? hint.filter((x) => liveTip.has(x)) : []) wanted.add(shardOf(id));
  const maps = new Map<string, ArchiveMap>();
  for (const shard of tips.keys())
    if (!hint || wanted.has(shard)) maps.set(shard, await readMapAt(store.reader.objects, archiveRef(shard)));
  const dropped = await shadowed(cwd, maps, liveTip);
  const touched = new Set([...due.map((d) => shardOf(d.id)), ...dropped.map((d) => shardOf(d.id))]);
  const writes: ShardWrite[] = [];
  for (const shard of [...touched].sort()) {
    const map: ArchiveMap = new Map(maps.get(shard) ?? []);
    for (const d of dropped) if (shardOf(d.id) === shard) map.delete(d.id);
    const mine = due.filter((d) => shardOf(d.id) === shard);
    for (const d of mine) map.set(d.id, d);
    const n = mine.length;
    writes.push({
      shard,
      old: tips.get(shard) ?? null,
      map,
      parents: mine.map((d) => d.tip),
      message: n ? `lazy: archive ${n} task(s) in shard ${shard}` : `lazy: un-archive reopened tasks in shard ${shard}`,
    });
  }
  return { due, rows: dueRows, dropped, writes };
}

/**
 * The index's rows come from each tip's Lazy-Summary trailer, a cache anyone can forge: what is archived, and the
 * status its map entry says, are decided by folding the candidates' documents at their tips. A fold that says not
 * due (or a tip that does not read) keeps the task live. Only the rows that call a task due are folded.
 */
async function foldDue(
  store: Store,
  candidates: LeanRow[],
  cutoff: string,
): Promise<{ due: Plan['due']; rows: LeanRow[] }> {
  const due: Plan['due'] = [];
  const rows: LeanRow[] = [];
  for (let i = 0; i < candidates.length; i += FOLD_CHUNK) {
    const part = candidates.slice(i, i + FOLD_CHUNK);
    const read = await store.reader.readMany(part.map((r) => ({ id: r.id, tip: r.tip })));
    for (const r of part) {
      const got = read.get(r.id);
      if (!got || got instanceof LazyError) continue;
      const v = foldTask(got.docs);
      if (!isTerminal(v.status) || !(v.updated_at < cutoff)) continue;
      due.push({ id: r.id, tip: r.tip, status: v.status });
      rows.push(fromTuple(toTuple(v)));
    }
  }
  return { due, rows };
}

const FOLD_CHUNK = 2000;

/**
 * Archived ids that have a live ref again whose history holds the archived tip (reopened, or changed by a clone that
 * had not archived it): the live ref wins and the map forgets them. A live ref that does not hold it keeps the entry
 * (a pull merges the two).
 */
async function shadowed(
  cwd: string,
  maps: Map<string, ArchiveMap>,
  live: Map<string, string>,
): Promise<{ id: string; tip: string }[]> {
  const out: { id: string; tip: string }[] = [];
  for (const map of maps.values())
    for (const a of map.values()) {
      const tip = live.get(a.id);
      if (tip && (tip === a.tip || (await isAncestor(cwd, a.tip, tip)))) out.push({ id: a.id, tip });
    }
  return out;
}

export async function isAncestor(cwd: string, older: string, newer: string): Promise<boolean> {
  if (older === newer) return true;
  return (await git(['merge-base', '--is-ancestor', older, newer], { cwd, allowFail: true })).code === 0;
}
