import type { Repo } from '../core/repo.js';
import type { Signature } from '../core/actor.js';
import { ObjectWriter } from '../store/writer.js';
import { parseCommit, parseTree, type ObjectReader } from '../store/objects.js';
import { readDoc, writeDoc } from '../store/validate.js';
import { leaseRef, LEASES_NS } from '../core/names.js';

// A claimed task's lease: one ref per task on the remote only, refs/lazy/leases/<id>, at a
// commit whose tree holds lease.yaml. Invariant: no local refs/lazy/leases/* ref is ever
// written (lazy push's refs/lazy/* pattern would send it); a lease is pushed by object id.

const LEASE_FILE = 'lease.yaml';

export interface LeaseDoc {
  task: string;
  run: string;
  host: string;
  /** The clone the claiming worker runs in (lib/core/place.ts): with the host, who holds the claim. */
  clone?: string;
  /** The length its worker renews it by: a worker with a shorter work.lease_seconds still judges it by this. */
  lease_ms?: number;
  /** When the lease expires: a claim whose lease is past belongs to a dead worker. */
  until: string;
  renewed_at: string;
}

/** A lease as the remote holds it: the commit its ref points at, and its document (null when unreadable). */
export interface Lease {
  oid: string;
  doc: LeaseDoc | null;
}

/**
 * Writes one lease commit (objects only); `parent` is the lease it renews or takes over, so every update is a
 * fast-forward.
 */
export async function writeLease(repo: Repo, doc: LeaseDoc, parent: string | null, author: Signature): Promise<string> {
  const w = new ObjectWriter(repo.commonDir);
  const where = { ref: leaseRef(doc.task), file: LEASE_FILE };
  const blob = await w.blob(writeDoc('lease', doc, where));
  return w.writeTreeCommit(new Map([[LEASE_FILE, { blob }]]), {
    parents: parent ? [parent] : [],
    message: `lazy: lease ${doc.task} (${doc.host} until ${doc.until})\n\nLazy-Task: ${doc.task}\nLazy-Run: ${doc.run}\n`,
    author,
  });
}

/**
 * Reads a lease commit by object id; null when it is missing or fails its schema (such a lease is never taken
 * over).
 */
export async function readLease(objects: ObjectReader, oid: string): Promise<LeaseDoc | null> {
  try {
    const commit = await objects.read(oid);
    if (!commit || commit.type !== 'commit' || commit.oversize) return null;
    const tree = await objects.read(parseCommit(commit.data).tree);
    const entry = tree?.type === 'tree' ? parseTree(tree.data).find((e) => e.name === LEASE_FILE) : undefined;
    const blob = entry ? await objects.read(entry.oid) : null;
    if (!blob || blob.type !== 'blob' || blob.oversize) return null;
    const where = { ref: leaseRef('?'), object: blob.oid, file: LEASE_FILE };
    return await readDoc<LeaseDoc>('lease', blob.data.toString('utf8'), where);
  } catch {
    return null;
  }
}

/** Whether a lease has run out at `nowMs`. */
export const expired = (doc: LeaseDoc, nowMs: number) => Date.parse(doc.until) < nowMs;

/** Every lease among a remote's tips, by task id, each document read once per commit (`cache`, shared by callers). */
export async function readLeases(
  objects: ObjectReader,
  tips: Map<string, string>,
  cache = new Map<string, LeaseDoc | null>(),
): Promise<Map<string, Lease>> {
  const out = new Map<string, Lease>();
  for (const [ref, oid] of tips) {
    if (!ref.startsWith(LEASES_NS)) continue;
    if (!cache.has(oid)) cache.set(oid, await readLease(objects, oid));
    out.set(ref.slice(LEASES_NS.length), { oid, doc: cache.get(oid)! });
  }
  return out;
}
