import type { Clock } from '../../lib/core/clock.js';

// A clock a test moves forward (time through the port). It runs with real time, so whatever lazy polls for
// (an agent's exit, a stop file) is seen as it happens; advance() skips the waits lazy sets itself (a usage
// limit's reset, a retry's pause, a watchdog, a crash window, a grace period) instead of the test sleeping
// through them. Every sleep whose end an advance passes wakes at once.

interface Sleeper {
  at: number;
  wake(): void;
}

export class TestClock implements Clock {
  private offset = 0;
  private readonly sleepers = new Set<Sleeper>();

  now(): number {
    return Date.now() + this.offset;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const done = () => {
        clearTimeout(timer);
        this.sleepers.delete(s);
        signal?.removeEventListener('abort', aborted);
      };
      const s: Sleeper = { at: this.now() + Math.max(0, ms), wake: () => (done(), resolve()) };
      const aborted = () => (done(), reject(signal!.reason));
      const timer = setTimeout(s.wake, Math.max(0, ms));
      signal?.addEventListener('abort', aborted, { once: true });
      this.sleepers.add(s);
    });
  }

  /** Moves time forward by `ms`: every sleep that ends by then wakes. */
  advance(ms: number): void {
    this.offset += ms;
    const t = this.now();
    for (const s of [...this.sleepers]) if (s.at <= t) s.wake();
  }

  /** How long the longest pending sleep still has to go (0 when none): a test waits for lazy to start a wait. */
  longestSleep(): number {
    const t = this.now();
    return Math.max(0, ...[...this.sleepers].map((s) => s.at - t));
  }
}
