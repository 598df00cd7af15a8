import type { Clock } from '../../lib/core/clock.js';

// A clock a test moves (time through the port). It runs with real time until paused; advance() skips the
// waits lazy sets itself (a usage limit's reset, a retry's pause, a watchdog, a crash window, a grace period)
// instead of the test sleeping through them: every sleep whose end an advance passes wakes at once. Polls
// (lazy looking at the world again: a process's exit, a file) keep their pace in real time, paused or not,
// so a paused clock lets nothing of lazy's own time pass while everything another process does is still seen.

interface Sleeper {
  at: number;
  timer?: NodeJS.Timeout;
  wake(): void;
}

export class TestClock implements Clock {
  /** This clock's time when `base` was read. */
  private virtual = Date.now();
  private base = Date.now();
  private running = true;
  private readonly sleepers = new Set<Sleeper>();

  now(): number {
    return this.running ? this.virtual + (Date.now() - this.base) : this.virtual;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const aborted = () => {
        this.forget(s);
        reject(signal!.reason);
      };
      const s: Sleeper = {
        at: this.now() + Math.max(0, ms),
        wake: () => {
          this.forget(s);
          signal?.removeEventListener('abort', aborted);
          resolve();
        },
      };
      signal?.addEventListener('abort', aborted, { once: true });
      this.sleepers.add(s);
      this.arm(s);
    });
  }

  poll(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', aborted);
        resolve();
      }, ms);
      const aborted = () => {
        clearTimeout(timer);
        reject(signal!.reason);
      };
      signal?.addEventListener('abort', aborted, { once: true });
    });
  }

  /** Moves time forward by `ms`: every sleep that ends by then wakes. */
  advance(ms: number): void {
    this.virtual = this.now() + ms;
    this.base = Date.now();
    for (const s of [...this.sleepers]) this.arm(s);
  }

  /** Stops this clock's time: from now on only advance() moves it, and no sleep ends by itself. */
  pause(): void {
    this.virtual = this.now();
    this.running = false;
    for (const s of this.sleepers) clearTimeout(s.timer);
  }

  resume(): void {
    this.base = Date.now();
    this.running = true;
    for (const s of [...this.sleepers]) this.arm(s);
  }

  /** How many sleeps are pending: a test waits for lazy to start a wait before it moves the clock past it. */
  sleeping(): number {
    return this.sleepers.size;
  }

  private arm(s: Sleeper): void {
    clearTimeout(s.timer);
    const left = s.at - this.now();
    if (left <= 0) s.wake();
    else if (this.running) s.timer = setTimeout(() => this.arm(s), left);
  }

  private forget(s: Sleeper): void {
    clearTimeout(s.timer);
    this.sleepers.delete(s);
  }
}
