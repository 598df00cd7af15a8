import { AsyncLocalStorage } from 'node:async_hooks';
import { setTimeout as delay } from 'node:timers/promises';

// Time is a port. Invariant: no code outside this file reads the system clock or sets a timer;
// everything asks the clock of the command being run, which main() binds from the port (as it
// binds the environment). The real port's clock is the system's; a test moves its own forward.

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /**
   * Resolves once `ms` of this clock's time have passed (lazy's own waits: a grace period, a retry's pause, a
   * usage limit's reset); rejects with the signal's reason when it aborts first.
   */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /**
   * Resolves after about `ms`, before a loop looks at the world again (a process's exit, a file or a ref another
   * process writes): the pace of a poll, not a span of lazy's time, so a test's stopped clock still lets it look.
   */
  poll(ms: number, signal?: AbortSignal): Promise<void>;
}

const realDelay = (ms: number, signal?: AbortSignal) =>
  delay(Math.max(0, ms), undefined, signal ? { signal } : undefined);

export const systemClock: Clock = { now: () => Date.now(), sleep: realDelay, poll: realDelay };

const scope = new AsyncLocalStorage<Clock>();

/** The clock of the command being run; the system's outside any. */
export const clock = (): Clock => scope.getStore() ?? systemClock;

export const withClock = <T>(c: Clock, f: () => T): T => scope.run(c, f);

export const now = (): number => clock().now();

/** The current time as an ISO 8601 string, as lazy stamps documents, records and logs. */
export const nowIso = (): string => new Date(now()).toISOString();

export const sleep = (ms: number, signal?: AbortSignal): Promise<void> => clock().sleep(ms, signal);

export const poll = (ms: number, signal?: AbortSignal): Promise<void> => clock().poll(ms, signal);

/**
 * Polls `check` every `everyMs` until it holds (true) or `ms` of the clock's time have passed (false):
 * a wait for something another process does, bounded by lazy's own time.
 */
export async function pollUntil(check: () => boolean, ms: number, everyMs: number): Promise<boolean> {
  const until = now() + ms;
  for (;;) {
    if (check()) return true;
    const left = until - now();
    if (left <= 0) return check();
    await poll(Math.min(everyMs, left));
  }
}

/**
 * The kernel's clock, for judgements made against file times the kernel stamped (a lock's mtime, git's temp
 * and spill files, a folder's racy stamp): a test's clock moved forward must not make a live lock look stale,
 * a file git is writing look abandoned, or a racy stamp look settled.
 */
export const fileSystemNow = (): number => Date.now();
