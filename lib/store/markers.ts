import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { readJsonFile, readRecords, writeFileAtomicSync } from '../core/fsutil.js';
import type { ProcIdentity } from '../core/proc.js';

// Run markers: one file per task in .git/lazy/active naming the run (a turn, a pairing, an
// accept) this machine holds on it and the process that owns it. Local and never pushed,
// like the locks beside them (lock.ts); reconcile's whole work list, found without a scan.

export interface ActiveMarker {
  task: string;
  run: string;
  kind: 'turn' | 'pair' | 'accept';
  since: string;
  owner: ProcIdentity;
  stash?: string;
  /** accept: the step it is in (lib/ops/accept/index.ts), and that step's rule if it dies there (accept-recovery.ts). */
  step?: string;
  if_killed?: 'restore' | 'settle';
  /** accept: the squash commit it is moving the target to, written before the move (a late landing is judged by it). */
  squash?: string;
  /** pair: the terminal session the pairing command runs in; it and all it starts carry LAZY_PAIR_RUN=<run>. */
  pair_sid?: number;
}

export const activeDir = (lazyDir: string) => join(lazyDir, 'active');

/** Marker files sit where an agent could reach them: read bounded, like any outside input. */
const readMarker = (path: string) => readJsonFile<ActiveMarker>(path, 64 * 1024 * 1024);

export function markActive(lazyDir: string, m: ActiveMarker): void {
  writeFileAtomicSync(join(activeDir(lazyDir), `${m.task}.json`), JSON.stringify(m));
}

export function readActive(lazyDir: string, task: string): ActiveMarker | undefined {
  return readMarker(join(activeDir(lazyDir), `${task}.json`));
}

/** Removes the marker only if it still names this run (a newer run may own it). */
export function clearActive(lazyDir: string, task: string, run: string): void {
  const m = readActive(lazyDir, task);
  if (m && m.run === run) rmSync(join(activeDir(lazyDir), `${task}.json`), { force: true });
}

/** Every active marker on this machine: reconcile's whole work list. */
export const listActive = (lazyDir: string): ActiveMarker[] => readRecords(activeDir(lazyDir), readMarker);
