import { join } from 'node:path';
import { mkdirSync, writeFileSync, readdirSync, readFileSync, statSync, unlinkSync, rmSync } from 'node:fs';
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
 * every later command for seconds. The same judgement as doctor's and reconcile's (judgeLock).
 */
function breakDeadLock(dir: string, name: string): void {
  const l = judgeLock(dir, name);
  if (l?.state === 'stale') dropLock(dir, l);
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
  /** The lock dir judged: a removal leaves a newer lock of the same name alone. */
  inode: number;
}

/**
 * The one judgement of a lock's holder (withLock's take-over, doctor, every command's reconcile): stale when the
 * process its owner record names is dead by its identity (the record must describe this very lock dir: the
 * inode), held while that process is alive, whatever its stamp says (a live process may still be using it); with
 * no record to judge by (the holder died before it wrote one, or another host name), stale once its stamp is older
 * than STALE_MS by the kernel's clock: proper-lockfile touches it every second while its holder runs.
 */
function judgeLock(dir: string, name: string): LockInfo | null {
  const path = join(dir, `${name}.lock`);
  let st;
  try {
    st = statSync(path);
  } catch {
    return null;
  }
  const recorded = readOwner(dir, name);
  const owner = recorded?.inode === st.ino ? recorded : null;
  const life = owner ? liveness(owner) : 'unknown';
  const age = fileSystemNow() - st.mtimeMs; // proper-lockfile stamps the lock with the kernel's time
  const stale = life === 'dead' || (life === 'unknown' && age > STALE_MS);
  return { name, path, owner: recorded, age_ms: Math.round(age), state: stale ? 'stale' : 'held', inode: st.ino };
}

/** Locks present on disk: held by a live process, or stale (judgeLock). */
export function listLocks(lazyDir: string): LockInfo[] {
  const dir = locksDir(lazyDir);
  let names: string[] = [];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith('.lock'));
  } catch {
    return [];
  }
  return names.map((n) => judgeLock(dir, n.slice(0, -'.lock'.length))).filter((l): l is LockInfo => !!l);
}

/** Whether any lock is on disk (one readdir): the only cost of the lock sweep in a command when nothing runs. */
export function locksPresent(lazyDir: string): boolean {
  try {
    return readdirSync(locksDir(lazyDir)).length > 0;
  } catch {
    return false;
  }
}

/** Removes a stale lock; false when the lock dir is no longer the one judged (broken and taken since). */
export const removeLock = (lazyDir: string, l: LockInfo): boolean => dropLock(locksDir(lazyDir), l);

function dropLock(dir: string, l: LockInfo): boolean {
  try {
    if (statSync(l.path).ino !== l.inode) return false;
  } catch {
    return false; // gone: someone else broke it first
  }
  // The owner record first (only this lock's: a newer holder's names another inode), so a lock dir made anew at
  // a reused inode number is never judged by the dead holder's record.
  if (readOwner(dir, l.name)?.inode === l.inode) rmSync(ownerPath(dir, l.name), { force: true });
  rmSync(l.path, { recursive: true, force: true });
  return true;
}

/**
 * Every command's reconcile: removes the locks whose holders are gone (judgeLock), and the owner records a lock
 * taken over left without their lock dir (unless their process lives: it may be writing its record); the locks it
 * removed.
 */
export function clearStaleLocks(lazyDir: string): LockInfo[] {
  const dir = locksDir(lazyDir);
  const removed = listLocks(lazyDir).filter((l) => l.state === 'stale' && dropLock(dir, l));
  let names: string[] = [];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith('.owner.json'));
  } catch {
    return removed;
  }
  for (const n of names) {
    const name = n.slice(0, -'.owner.json'.length);
    const owner = readOwner(dir, name);
    if (statSync(join(dir, `${name}.lock`), { throwIfNoEntry: false }) || (owner && liveness(owner) === 'alive'))
      continue;
    rmSync(join(dir, n), { force: true });
  }
  return removed;
}
