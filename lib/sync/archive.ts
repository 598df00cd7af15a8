import type { Repo } from '../core/repo.js';
import type { Signature } from '../core/actor.js';
import type { TaskReader } from '../store/read.js';
import { parseCommit, type ObjectReader } from '../store/objects.js';
import { ObjectWriter } from '../store/writer.js';
import {
  archiveTips,
  commitTransaction,
  isAncestor,
  readMapAt,
  shardOf,
  writeShardCommit,
  type ArchiveMap,
  type Transaction,
} from '../store/archive/index.js';
import { saveArchivedIds } from '../store/archive/ids.js';
import { ARCHIVE_NS, leaseOption, pushOidSpec, taskRef, TASKS_NS } from '../core/names.js';
import { git } from '../core/git.js';
import { pushLines } from './remote.js';
import { checkShard, type Rejected } from './check.js';

// The archive across clones (see lib/store/archive/). A pull takes the remote's archive refs: a fast-forward, or,
// when both clones archived, a merge commit of the two with the union of their maps (a task in both at different
// tips keeps the tip that holds the other; two tips that diverged come back live at one of them and the pull's task
// merge joins the other, so nothing is lost and every clone computes the same). Then a live task ref the remote
// archived is dropped, only when its tip is the archived tip or behind it; a live ref that moved on wins. A remote
// live ref of a task this clone archived is taken only when it moved past the archived tip (the task comes back).

export interface ArchivePull {
  /** Shards whose archive ref moved here. */
  shards: string[];
  /** Live task refs dropped: the remote archived them. */
  dropped: string[];
  /** Archived tasks made live again: the remote changed them since. */
  revived: string[];
  /** Why the archive was left to the next pull (another git process was writing packed refs). */
  note?: string;
}

const MERGER = { name: 'lazy', email: 'lazy@merge.invalid' };

/**
 * Settles the archive before the task merge; returns what it did, and the remote's tips as the task merge should
 * take them: less the remote task refs the archive already holds, plus, for a task archived at diverged tips, the
 * other tip. The remote's own `remote` map is left as it is (push compares against it).
 */
export async function pullArchive(
  repo: Repo,
  reader: TaskReader,
  remote: Map<string, string>,
  local: Map<string, string>,
): Promise<{ report: ArchivePull; tips: Map<string, string>; rejected: Rejected[] }> {
  const out: ArchivePull = { shards: [], dropped: [], revived: [] };
  const tips = new Map(remote);
  const rejected: Rejected[] = [];
  const done = () => ({ report: out, tips, rejected });
  const remoteShards = new Map(
    [...tips].filter(([ref]) => ref.startsWith(ARCHIVE_NS)).map(([ref, oid]) => [ref.slice(ARCHIVE_NS.length), oid]),
  );
  const localShards = await archiveTips(repo.cwd);
  const t: Transaction = { shards: [], deletes: [], creates: [] };
  const maps = new Map<string, ArchiveMap>();
  for (const [shard, theirs] of remoteShards) {
    const mine = localShards.get(shard) ?? null;
    if (mine === theirs || (mine && (await isAncestor(repo.cwd, theirs, mine)))) continue;
    // What the remote's map adds or changes is checked as a pull checks task refs: a shard that fails is not taken.
    const bad = await checkShard(
      reader,
      shard,
      theirs,
      mine ? await readMapAt(reader.objects, mine, shard) : new Map(),
      (id) => local.has(id),
    );
    if (bad) {
      rejected.push(bad);
      continue;
    }
    const next =
      mine && !(await isAncestor(repo.cwd, mine, theirs))
        ? await mergeShards(repo, reader.objects, { shard, a: mine, b: theirs, local }, tips, t)
        : theirs;
    t.shards.push({ shard, old: mine, next });
    maps.set(shard, await readMapAt(reader.objects, next, shard));
  }
  // Remote live refs of tasks archived here: only those the remote moved on from come back.
  const remoteLive = [...tips].filter(([ref]) => ref.startsWith(TASKS_NS));
  for (const [ref, r] of remoteLive) {
    const id = ref.slice(TASKS_NS.length);
    if (local.has(id)) continue;
    const shard = shardOf(id);
    const at = localShards.get(shard);
    if (!maps.has(shard)) maps.set(shard, at ? await readMapAt(reader.objects, at) : new Map());
    const a = maps.get(shard)!.get(id);
    if (!a) continue;
    if (await isAncestor(repo.cwd, r, a.tip)) tips.delete(ref);
    else if (!t.creates!.some((c) => c.id === id)) t.creates!.push({ id, tip: a.tip });
  }
  // Live refs here that the remote archived at their tip or past it.
  for (const s of t.shards) {
    for (const a of maps.get(s.shard)!.values()) {
      const l = local.get(a.id);
      if (!l || t.creates!.some((c) => c.id === a.id)) continue;
      if (await isAncestor(repo.cwd, l, a.tip)) (t.deletes.push({ id: a.id, tip: l }), out.dropped.push(a.id));
      else if (!(await isAncestor(repo.cwd, a.tip, l)) && !tips.has(taskRef(a.id))) tips.set(taskRef(a.id), a.tip);
    }
  }
  if (!t.shards.length && !t.creates!.length) return done();
  out.revived = t.creates!.map((c) => c.id);
  // A local writer that moved a task meanwhile fails the transaction: nothing moves, the next pull settles it.
  const moved = await commitTransaction(repo.cwd, t, 'lazy: pull the archive');
  if (moved === 'done') {
    out.shards = t.shards.map((s) => s.shard);
    if (out.shards.length) await saveArchivedIds(repo.lazyDir, reader.objects);
  } else {
    out.dropped = out.revived = [];
    if (moved === 'locked') out.note = 'another git process held packed-refs.lock: the next pull takes the archive';
  }
  return done();
}

/** The merge of two clones' archive commits of one shard: deterministic, so both clones write the same commit. */
async function mergeShards(
  repo: Repo,
  objects: ObjectReader,
  { shard, a, b, local }: { shard: string; a: string; b: string; local: Map<string, string> },
  tips: Map<string, string>,
  t: Transaction,
): Promise<string> {
  const [ma, mb] = await Promise.all([readMapAt(objects, a, shard), readMapAt(objects, b, shard)]);
  const map: ArchiveMap = new Map(ma);
  const extra: string[] = [];
  for (const [id, y] of mb) {
    const x = map.get(id);
    if (!x || x.tip === y.tip) map.set(id, y);
    else if (await isAncestor(repo.cwd, x.tip, y.tip)) map.set(id, y);
    else if (!(await isAncestor(repo.cwd, y.tip, x.tip))) {
      // Diverged: archived at both tips. It comes back live at the smaller one and the task merge takes the other.
      const [lo, hi] = [x.tip, y.tip].sort() as [string, string];
      map.set(id, x.tip === lo ? x : y);
      extra.push(hi);
      if (!local.has(id)) t.creates!.push({ id, tip: lo });
      if (!tips.has(taskRef(id))) tips.set(taskRef(id), hi);
    }
  }
  const [ca, cb] = await objects.readMany([a, b]);
  const when = Math.max(timeOf(ca?.data), timeOf(cb?.data));
  const sig: Signature = { ...MERGER, timestamp: when, timezoneOffset: 0 };
  const [p1, p2] = [a, b].sort() as [string, string];
  const w = new ObjectWriter(repo.commonDir);
  return writeShardCommit(
    w,
    { shard, old: p1, map, parents: [p2, ...extra], message: `lazy: merge the archive of shard ${shard}` },
    sig,
  );
}

function timeOf(data: Buffer | undefined): number {
  const m = data ? / (\d+) [+-]\d{4}$/.exec(parseCommit(data).committer) : null;
  return m ? Number(m[1]) : 0;
}

const DELETE_CHUNK = 2000;

/**
 * After a push: the remote's live refs of tasks archived here are deleted, each with its expected old value
 * (`--force-with-lease`), only once this clone's archive ref of that shard is on the remote (`landed`), and only when
 * the remote's tip is the archived tip or behind it. Returns the ids deleted there.
 */
export async function pushArchive(
  repo: Repo,
  objects: ObjectReader,
  remote: string,
  tips: Map<string, string>,
  here: Set<string>,
  landed: (shard: string, oid: string) => boolean,
): Promise<string[]> {
  const gone = [...tips].filter(([ref]) => ref.startsWith(TASKS_NS) && !here.has(ref.slice(TASKS_NS.length)));
  if (!gone.length) return [];
  const shards = await archiveTips(repo.cwd);
  const maps = new Map<string, ArchiveMap>();
  const leases: { ref: string; old: string; id: string }[] = [];
  for (const [ref, r] of gone) {
    const id = ref.slice(TASKS_NS.length);
    const shard = shardOf(id);
    const at = shards.get(shard);
    if (!at || !landed(shard, at)) continue;
    if (!maps.has(shard)) maps.set(shard, await readMapAt(objects, at));
    const a = maps.get(shard)!.get(id);
    if (a && (await isAncestor(repo.cwd, r, a.tip))) leases.push({ ref, old: r, id });
  }
  const deleted: string[] = [];
  for (let i = 0; i < leases.length; i += DELETE_CHUNK) {
    const part = leases.slice(i, i + DELETE_CHUNK);
    const args = ['push', '--porcelain', ...part.map((l) => leaseOption(l.ref, l.old)), remote];
    const r = await git([...args, ...part.map((l) => pushOidSpec('', l.ref))], { cwd: repo.cwd, allowFail: true });
    const ok = new Set(
      pushLines(r.stdout)
        .filter((l) => l.flag === '-')
        .map((l) => l.ref),
    );
    for (const l of part) if (ok.has(l.ref)) deleted.push(l.id);
  }
  return deleted;
}
