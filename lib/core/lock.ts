import { join } from 'node:path';
import { mkdirSync, writeFileSync, readdirSync, readFileSync, statSync, unlinkSync, rmSync, rmdirSync } from 'node:fs';
import { busy } from './errors.js';
import { liveness, selfIdentity, type ProcIdentity } from './proc.js';
import { env } from './env.js';
import { isTaskId } from './ids.js';
import { fileSystemNow } from './clock.js';

// Per-task writer lock (proper-lockfile) in .git/lazy/locks, outside refs/ so it never
// collides with git's own <ref>.lock. The lock only serialises writers to avoid retry
// storms; correctness comes from the compare-and-swap on the ref, so taking over a
// lock whose owner is verifiably dead can never lose an update.

export const STALE_MS = 5000;

export function lockTimeoutMs(): number {
  const ms = Number(env().LAZY_LOCK_TIMEOUT_MS);
  return Number.isFinite(ms) && ms >= 0 ? ms : 15000;
}

export const locksDir = (lazyDir: string) => join(lazyDir, 'locks');

/** Who holds a lock, beside the lock dir (proper-lockfile removes the dir with rmdir). */
interface Owner extends ProcIdentity {
  inode: number;
}
const ownerPath = (dir: string, name: string) => join(dir, `${name}.owner.json`);

function readOwner(dir: string, name: string): Owner | null {
  try {
    return JSON.parse(readFileSync(ownerPath(dir, name), 'utf8')) as Owner;
  } catch {
    return null;
  }
}

/**
 * A SIGKILLed writer leaves its lock behind; waiting out the mtime staleness would stall
 * every later command for seconds. The inode check makes sure the owner record
 * describes this very lock dir, not an older one.
 */
function breakDeadLock(dir: string, name: string): void {
  const path = join(dir, `${name}.lock`);
  let inode: number;
  try {
    inode = statSync(path).ino;
  } catch {
    return;
  }
  const owner = readOwner(dir, name);
  if (!owner || owner.inode !== inode || liveness(owner) !== 'dead') return;
  try {
    rmdirSync(path);
  } catch {
    /* someone else broke it first */
  }
}

type Lockfile = typeof import('proper-lockfile');
let lf: Promise<Lockfile> | undefined;
const loadLockfile = () =>
  (lf ??= import('proper-lockfile').then((m) => ((m as { default?: Lockfile }).default ?? m) as Lockfile));

/** Runs fn while holding the named lock; waits at most lockTimeoutMs, then fails with exit 5. */
export async function withLock<T>(lazyDir: string, name: string, fn: () => Promise<T>): Promise<T> {
  const dir = locksDir(lazyDir);
  mkdirSync(dir, { recursive: true });
  const target = join(dir, name);
  const lockfilePath = `${target}.lock`;
  const timeout = lockTimeoutMs();
  const lockfile = await loadLockfile();
  breakDeadLock(dir, name);
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
      throw busy(
        `${isTaskId(name) ? `task ${name}` : `the ${name} lock`} is busy: another lazy process holds it (waited ${timeout} ms)`,
        {
          lock: lockfilePath,
          waited_ms: timeout,
        },
      );
    }
    throw e;
  }
  try {
    const owner: Owner = { ...selfIdentity(), inode: statSync(lockfilePath).ino };
    writeFileSync(ownerPath(dir, name), JSON.stringify(owner));
  } catch {
    /* informational only */
  }
  try {
    return await fn();
  } finally {
    try {
      unlinkSync(ownerPath(dir, name));
    } catch {
      /* already gone */
    }
    await release().catch(() => {});
  }
}

export interface LockInfo {
  name: string;
  path: string;
  owner: ProcIdentity | null;
  age_ms: number;
  state: 'held' | 'stale';
}

/** Locks present on disk, for doctor: held by a live process, or stale (owner dead or mtime too old). */
export function listLocks(lazyDir: string): LockInfo[] {
  const dir = locksDir(lazyDir);
  let names: string[] = [];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith('.lock'));
  } catch {
    return [];
  }
  const out: LockInfo[] = [];
  for (const n of names) {
    const name = n.slice(0, -'.lock'.length);
    const path = join(dir, n);
    let st;
    try {
      st = statSync(path);
    } catch {
      continue;
    }
    const owner = readOwner(dir, name);
    const dead = owner?.inode === st.ino && liveness(owner) === 'dead';
    const age = fileSystemNow() - st.mtimeMs; // proper-lockfile stamps the lock with the kernel's time
    out.push({ name, path, owner, age_ms: Math.round(age), state: dead || age > STALE_MS ? 'stale' : 'held' });
  }
  return out;
}

export function removeLock(lazyDir: string, l: LockInfo): void {
  rmSync(l.path, { recursive: true, force: true });
  rmSync(ownerPath(locksDir(lazyDir), l.name), { force: true });
}
