import { join } from 'node:path';
import { mkdirSync, writeFileSync, readdirSync, readFileSync, statSync, unlinkSync, rmSync } from 'node:fs';
import { busy } from '../core/errors.js';
import { identityOf, liveness, type ProcIdentity } from '../core/proc.js';

// Per-task writer lock (proper-lockfile) in .git/lazy/locks, outside refs/ so it never
// collides with git's own <ref>.lock. The lock only serialises writers to avoid retry
// storms; correctness comes from the compare-and-swap on the ref.

export const STALE_MS = 5000;

export function lockTimeoutMs(): number {
  const env = Number(process.env.LAZY_LOCK_TIMEOUT_MS);
  return Number.isFinite(env) && env >= 0 ? env : 15000;
}

export const locksDir = (lazyDir: string) => join(lazyDir, 'locks');

type Lockfile = typeof import('proper-lockfile');
let lf: Promise<Lockfile> | undefined;
const loadLockfile = () => (lf ??= import('proper-lockfile').then((m) => ((m as { default?: Lockfile }).default ?? m) as Lockfile));

/** Runs fn while holding the named lock; waits at most lockTimeoutMs, then fails with exit 5. */
export async function withLock<T>(lazyDir: string, name: string, fn: () => Promise<T>): Promise<T> {
  const dir = locksDir(lazyDir);
  mkdirSync(dir, { recursive: true });
  const target = join(dir, name);
  const lockfilePath = `${target}.lock`;
  const timeout = lockTimeoutMs();
  const lockfile = await loadLockfile();
  let release: () => Promise<void>;
  try {
    release = await lockfile.lock(target, {
      realpath: false,
      lockfilePath,
      stale: STALE_MS,
      update: 1000,
      retries: { retries: Math.ceil(timeout / 40), factor: 1, minTimeout: 20, maxTimeout: 40, randomize: true },
      // A lock is compromised only when this process stalled past STALE_MS; the ref CAS
      // still protects the data, so carry on rather than crash.
      onCompromised: () => {},
    });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ELOCKED') {
      throw busy(`task ${name} is busy: another lazy process holds its lock (waited ${timeout} ms)`, { lock: lockfilePath, waited_ms: timeout });
    }
    throw e;
  }
  // Who holds it, for doctor. Kept beside the lock dir: proper-lockfile removes the dir with rmdir.
  const ownerFile = `${target}.owner.json`;
  try { writeFileSync(ownerFile, JSON.stringify(identityOf(process.pid))); } catch { /* informational only */ }
  try {
    return await fn();
  } finally {
    try { unlinkSync(ownerFile); } catch { /* already gone */ }
    await release().catch(() => {});
  }
}

export interface LockInfo { name: string; path: string; owner: ProcIdentity | null; age_ms: number; state: 'held' | 'stale' }

/** Leftover locks for doctor: held by a live process, or stale (owner dead or mtime too old). */
export function listLocks(lazyDir: string): LockInfo[] {
  const dir = locksDir(lazyDir);
  let names: string[] = [];
  try { names = readdirSync(dir).filter((n) => n.endsWith('.lock')); } catch { return []; }
  const out: LockInfo[] = [];
  for (const n of names) {
    const path = join(dir, n);
    let owner: ProcIdentity | null = null;
    try { owner = JSON.parse(readFileSync(join(dir, `${n.slice(0, -'.lock'.length)}.owner.json`), 'utf8')) as ProcIdentity; } catch { /* no owner file */ }
    let age = 0;
    try { age = Date.now() - statSync(path).mtimeMs; } catch { continue; }
    const dead = owner ? liveness(owner) === 'dead' : false;
    out.push({ name: n.slice(0, -'.lock'.length), path, owner, age_ms: Math.round(age), state: dead || age > STALE_MS ? 'stale' : 'held' });
  }
  return out;
}

export function removeLock(lazyDir: string, l: LockInfo): void {
  rmSync(l.path, { recursive: true, force: true });
  rmSync(join(locksDir(lazyDir), `${l.name}.owner.json`), { force: true });
}
