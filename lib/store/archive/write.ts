import { git, gitError } from '../../core/git.js';
import type { Signature } from '../../core/actor.js';
import { archiveRef, taskRef } from '../../core/names.js';
import { ObjectWriter } from '../writer.js';
import { MAP_FILE, serializeMap, type ArchiveMap } from './map.js';

// Writing the archive: a commit per shard whose tree is the new map and whose parents are the shard's
// previous commit plus every tip it newly holds (so each archived history stays reachable, and a fetch of
// the archive ref brings it), then ONE ref transaction that moves the archive refs by compare-and-swap and
// deletes each archived task ref at the tip that was archived. A task that moved meanwhile fails the whole
// transaction; the caller re-reads and tries again, and that task (changed now) stays live.

/** Git's commits with many parents are fine to read, but each parent is a line: a shard takes this many per commit. */
export const PARENTS_PER_COMMIT = 5000;

export interface ShardWrite {
  shard: string;
  /** The shard's commit before (null: a new shard). */
  old: string | null;
  map: ArchiveMap;
  /** Tips the new commit must keep reachable (the ones newly archived, or a merged side's tip). */
  parents: string[];
  message: string;
}

/** The shard's new commit; past PARENTS_PER_COMMIT new tips it is a short chain of commits, the last holding the map. */
export async function writeShardCommit(w: ObjectWriter, s: ShardWrite, sig: Signature): Promise<string> {
  const tree = new Map([[MAP_FILE, { blob: await w.blob(serializeMap(s.map)) }]]);
  let prev = s.old;
  const chunks: string[][] = [];
  for (let i = 0; i < s.parents.length; i += PARENTS_PER_COMMIT)
    chunks.push(s.parents.slice(i, i + PARENTS_PER_COMMIT));
  if (chunks.length === 0) chunks.push([]);
  for (const chunk of chunks) {
    const parents = prev ? [prev, ...chunk.filter((p) => p !== prev)] : chunk;
    prev = await w.writeTreeCommit(tree, { parents, message: s.message, author: sig });
  }
  return prev!;
}

export interface Transaction {
  shards: { shard: string; next: string; old: string | null }[];
  /** Task refs to delete, each only at this tip. */
  deletes: { id: string; tip: string }[];
  /** Task refs to create (a task a merge of two archives had to bring back live). */
  creates?: { id: string; tip: string }[];
  /** Task refs that must still be at this tip (a live ref whose tip made the map forget the task). */
  verifies?: { id: string; tip: string }[];
}

/**
 * All or nothing: 'done', or nothing moved: 'moved' when a ref was not at the value expected (read again), 'locked'
 * when another git process held packed-refs.lock (a `git pack-refs`, a pull writing packed refs: wait, or leave it).
 */
export type Committed = 'done' | 'moved' | 'locked';

export async function commitTransaction(cwd: string, t: Transaction, reason: string): Promise<Committed> {
  const lines = ['start'];
  for (const s of t.shards)
    lines.push(s.old ? `update ${archiveRef(s.shard)} ${s.next} ${s.old}` : `create ${archiveRef(s.shard)} ${s.next}`);
  for (const d of t.deletes) lines.push(`delete ${taskRef(d.id)} ${d.tip}`);
  for (const c of t.creates ?? []) lines.push(`create ${taskRef(c.id)} ${c.tip}`);
  for (const v of t.verifies ?? []) lines.push(`verify ${taskRef(v.id)} ${v.tip}`);
  lines.push('prepare', 'commit', '');
  const args = ['update-ref', '--create-reflog', '-m', reason, '--stdin'];
  const r = await git(args, {
    cwd,
    input: lines.join('\n'),
    allowFail: true,
  });
  if (r.code === 0) return 'done';
  if (/packed-refs\.lock/.test(r.stderr)) return 'locked';
  if (/cannot lock ref|is at .* but expected|reference already exists|unable to resolve|but expected/i.test(r.stderr))
    return 'moved';
  throw gitError(args, r);
}
