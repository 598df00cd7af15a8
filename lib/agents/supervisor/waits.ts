import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { readJsonFile, writeFileAtomicSync } from '../../core/fsutil.js';
import { now, nowIso, pollUntil } from '../../core/clock.js';
import { clearRetrying, retryReason, writeRetrying, type Retrying } from '../substate.js';

// A turn waiting for the agent's usage window to reopen: the supervisor sleeps and records
// the fact here, one file per task, so `show` and `list` of any process can say so. Local
// and never pushed, like the run files. Invariant: a record counts only while its task is
// working on the run it names, so one left by a killed supervisor is never believed.
// `list` pays one readdir for it, and only when some listed task is working.

export interface Waiting {
  kind: 'usage_limit';
  run: string;
  since: string;
  /** When the supervisor retries: the reset the agent named, or a recheck when it named none. */
  until: string;
  reset_named: boolean;
  reason: string;
}

export const waitsDir = (lazyDir: string) => join(lazyDir, 'waits');
const fileOf = (lazyDir: string, task: string) => join(waitsDir(lazyDir), `${task}.json`);

const read = (path: string) => readJsonFile<Waiting>(path, 64 * 1024);

/** The wait of this task's run, if that run is waiting. */
export function readWaiting(lazyDir: string, task: string, run: string | null): Waiting | null {
  if (!run) return null;
  const w = read(fileOf(lazyDir, task));
  return w && w.run === run ? w : null;
}

/** Every recorded wait on this machine by task (one readdir; nothing else when none waits). */
export function listWaiting(lazyDir: string): Map<string, Waiting> {
  let names: string[];
  try {
    names = readdirSync(waitsDir(lazyDir));
  } catch {
    return new Map();
  }
  const out = new Map<string, Waiting>();
  for (const n of names) {
    const w = n.endsWith('.json') ? read(join(waitsDir(lazyDir), n)) : undefined;
    if (w) out.set(n.slice(0, -5), w);
  }
  return out;
}

/** Waits until `ms` of the clock's time has passed, looking for the stop file every 200 ms; true when the user asked to stop meanwhile. */
export const sleepUnlessStopped = (ms: number, stopFile: string): Promise<boolean> =>
  pollUntil(() => existsSync(stopFile), ms, 200);

/** The agent CLI's own retries, recorded for the run as the supervisor's are. */
export const retryRecorder = (lazyDir: string, run: string) => (r: Retrying | null) =>
  r ? writeRetrying(lazyDir, run, r) : clearRetrying(lazyDir, run);

/**
 * Sleeps out the delay before a failed attempt's retry with its record standing (list and show say
 * `retrying: rate limit, attempt 2 in 20 s`); the record goes however the sleep ends. True on a stop.
 */
export async function sleepRetrying(
  lazyDir: string,
  run: string,
  failed: { cls: string; reason: string; next: number },
  ms: number,
  stopFile: string,
): Promise<boolean> {
  const until = new Date(now() + ms).toISOString();
  writeRetrying(lazyDir, run, {
    reason: retryReason(failed.reason, failed.cls),
    attempt: failed.next,
    at: nowIso(),
    until,
  });
  try {
    return await sleepUnlessStopped(ms, stopFile);
  } finally {
    clearRetrying(lazyDir, run);
  }
}

/** Records the wait, sleeps it out (a `lazy stop` ends it), and removes the record however it ends. */
export async function waitForUsage(lazyDir: string, task: string, w: Waiting, stopFile: string): Promise<boolean> {
  mkdirSync(waitsDir(lazyDir), { recursive: true });
  writeFileAtomicSync(fileOf(lazyDir, task), JSON.stringify(w));
  try {
    return await sleepUnlessStopped(Date.parse(w.until) - now(), stopFile);
  } finally {
    clearWaiting(lazyDir, task, w.run);
  }
}

/** Removes the record of this run's wait (a later run's record stays). */
export function clearWaiting(lazyDir: string, task: string, run: string): void {
  if (read(fileOf(lazyDir, task))?.run === run) rmSync(fileOf(lazyDir, task), { force: true });
}
