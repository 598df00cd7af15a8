import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { readRecords, readStateFile, writeFileAtomicSync } from '../core/fsutil.js';

// What this clone's worker holds on the remote, one file per claimed task in .git/lazy/claims/
// (local, never pushed): the run, the lease it last pushed and what it last saw of the task ref
// and work branch there. A worker that was killed finds its claims here when it starts again,
// so its next push carries the values it expected, and a claim taken over meanwhile is refused.

export interface ClaimState {
  task: string;
  run: string;
  remote: string;
  host: string;
  /** The lease commit this worker last pushed (what the next renewal or release expects). */
  lease: string;
  /** The task ref's tip on the remote, as last pushed or pulled. */
  task_tip: string;
  /** The work branch's tip on the remote (null: none there). */
  branch_tip: string | null;
}

const dir = (lazyDir: string) => join(lazyDir, 'claims');
const file = (lazyDir: string, id: string) => join(dir(lazyDir), `${id}.json`);

export function saveClaim(lazyDir: string, c: ClaimState): void {
  mkdirSync(dir(lazyDir), { recursive: true });
  writeFileAtomicSync(file(lazyDir, c.task), JSON.stringify(c, null, 2));
}

export function dropClaim(lazyDir: string, id: string): void {
  rmSync(file(lazyDir, id), { force: true });
}

const valid = (c: ClaimState) =>
  typeof c.task === 'string' &&
  typeof c.run === 'string' &&
  typeof c.lease === 'string' &&
  typeof c.task_tip === 'string';

/** Every claim this clone's worker holds (or held when it was killed). */
export const listClaims = (lazyDir: string) =>
  readRecords(dir(lazyDir), (path) => readStateFile<ClaimState>(path, valid));
