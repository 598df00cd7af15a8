import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { readRecords, readStateFile, writeFileAtomicSync } from '../core/fsutil.js';
import type { ProcIdentity } from '../core/proc.js';

// What this clone's worker holds on the remote, one file per claimed task in .git/lazy/claims/
// (local, never pushed): the run, and what it last saw of the task ref and work branch there.
// The lease it last pushed sits beside it (<id>.lease): the turn's supervisor renews it while
// its agent runs and the worker renews it too, so a worker busy picking work (or killed) never
// lets a live turn's lease lapse. Invariant: <id>.json has one writer, the worker; <id>.lease is
// written only under the lease's lock (lib/fleet/running.ts renewDue), so two renewers never race.
// A worker that was killed finds its claims here when it starts again, so its next push carries
// the values it expected, and a claim taken over meanwhile is refused.

export interface ClaimState {
  task: string;
  run: string;
  remote: string;
  host: string;
  /** The clone the claim was made in (lib/core/place.ts). */
  clone?: string;
  /** The lease commit last pushed for this claim (what the next renewal or release expects). */
  lease: string;
  /** When that lease runs out (ISO). */
  until?: string;
  /** The worker process that made the claim: while it lives it releases the claim; once it is gone, the run's supervisor does. */
  worker?: ProcIdentity;
  /** The lease's length the worker claimed with (work.lease_seconds): its supervisor renews by the same. */
  lease_ms?: number;
  /** The task ref's tip on the remote, as last pushed or pulled. */
  task_tip: string;
  /** The work branch's tip on the remote (null: none there). */
  branch_tip: string | null;
}

/** The lease file: the last lease pushed for the claim, and when it runs out. */
export interface HeldLease {
  /** The run the lease is for: a file another claim of the task left behind is never taken for this one's. */
  run: string;
  lease: string;
  until: string;
}

const dir = (lazyDir: string) => join(lazyDir, 'claims');
const file = (lazyDir: string, id: string) => join(dir(lazyDir), `${id}.json`);
const leaseFile = (lazyDir: string, id: string) => join(dir(lazyDir), `${id}.lease`);

/** Writes the worker's record of a claim (its tips); the lease goes to its own file. */
export function saveClaim(lazyDir: string, c: ClaimState): void {
  mkdirSync(dir(lazyDir), { recursive: true });
  const { lease, until, ...rest } = c;
  writeFileAtomicSync(file(lazyDir, c.task), JSON.stringify({ ...rest, lease, until }, null, 2));
}

/** Records a lease pushed for the task's claim, and who renews it from now on. */
export function saveLease(lazyDir: string, task: string, held: HeldLease): void {
  mkdirSync(dir(lazyDir), { recursive: true });
  writeFileAtomicSync(leaseFile(lazyDir, task), JSON.stringify(held));
}

export function readLeaseFile(lazyDir: string, task: string): HeldLease | null {
  return readStateFile<HeldLease>(leaseFile(lazyDir, task), (h) => typeof h.lease === 'string');
}

export function dropClaim(lazyDir: string, id: string): void {
  rmSync(file(lazyDir, id), { force: true });
  rmSync(leaseFile(lazyDir, id), { force: true });
}

const valid = (c: ClaimState) =>
  typeof c.task === 'string' &&
  typeof c.run === 'string' &&
  typeof c.lease === 'string' &&
  typeof c.task_tip === 'string';

/** A claim as it stands: the worker's record, with the lease last pushed by whoever renews it. */
export function readClaim(lazyDir: string, id: string): ClaimState | null {
  const c = readStateFile<ClaimState>(file(lazyDir, id), valid);
  return c && withLease(lazyDir, c);
}

function withLease(lazyDir: string, c: ClaimState): ClaimState {
  const held = readLeaseFile(lazyDir, c.task);
  return held && held.run === c.run ? { ...c, lease: held.lease, until: held.until } : c;
}

/** Every claim this clone's worker holds (or held when it was killed). */
export const listClaims = (lazyDir: string) =>
  readRecords(dir(lazyDir), (path) => readStateFile<ClaimState>(path, valid)).map((c) => withLease(lazyDir, c));
