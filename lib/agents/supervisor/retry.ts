import type { FailureClass } from '../adapters/taxonomy.js';

// The only place retry cadence is decided: a pure function of the failures so far.
// Transients are paced 5 s, 10 s, 20 s, 40 s, then every 60 s; the crash-loop detector
// (3 failures under 10 s each) applies only to unknown.

export interface RetryConfig {
  baseMs: number;
  transientMax: number;
  unreachableMax: number;
  crashWindowMs: number;
  /** A usage limit that names no reset is checked again after this long. */
  usageRecheckMs: number;
  /** A usage limit that resets later than this from now blocks the task instead of waiting. */
  usageMaxWaitMs: number;
}

export const DEFAULT_RETRY: RetryConfig = {
  baseMs: 5000,
  transientMax: 60,
  unreachableMax: 10,
  crashWindowMs: 10_000,
  usageRecheckMs: 15 * 60_000,
  usageMaxWaitMs: 6 * 3_600_000,
};

export interface Attempt {
  cls: FailureClass;
  durationMs: number;
}

export type Decision =
  { action: 'retry'; delayMs: number } | { action: 'stop'; outcome: 'failed' | 'interrupted'; why: string };

export const delayFor = (n: number, baseMs: number) => baseMs * ([1, 2, 4, 8][n] ?? 12);

/** How many of the latest attempts share a predicate, counting back from the last. */
function streak(history: readonly Attempt[], p: (a: Attempt) => boolean): Attempt[] {
  const out: Attempt[] = [];
  for (let i = history.length - 1; i >= 0 && p(history[i]!); i--) out.unshift(history[i]!);
  return out;
}

export function decide(history: readonly Attempt[], cfg: RetryConfig = DEFAULT_RETRY): Decision {
  const last = history.at(-1);
  if (!last) return { action: 'retry', delayMs: 0 };
  switch (last.cls) {
    case 'fatal_auth':
    case 'fatal_config':
      return { action: 'stop', outcome: 'failed', why: `${last.cls} is not retried` };
    case 'transient_unreachable': {
      const n = streak(history, (a) => a.cls === 'transient_unreachable').length;
      return n >= cfg.unreachableMax
        ? {
            action: 'stop',
            outcome: 'failed',
            why: `gave up after ${n} attempts: the agent's endpoint stayed unreachable`,
          }
        : { action: 'retry', delayMs: delayFor(n - 1, cfg.baseMs) };
    }
    case 'transient_overload':
    case 'transient_network': {
      const n = streak(history, (a) => a.cls === 'transient_overload' || a.cls === 'transient_network').length;
      return n >= cfg.transientMax
        ? { action: 'stop', outcome: 'failed', why: `retry budget spent after ${n} attempts` }
        : { action: 'retry', delayMs: delayFor(n - 1, cfg.baseMs) };
    }
    case 'usage_limit': // never in a history: a usage limit waits (usageWait) and costs no retry
      return { action: 'retry', delayMs: cfg.baseMs };
    case 'unknown': {
      const run = streak(history, (a) => a.cls === 'unknown');
      if (run.length < 3) return { action: 'retry', delayMs: delayFor(run.length - 1, cfg.baseMs) };
      const fast = run.slice(-3).every((a) => a.durationMs < cfg.crashWindowMs);
      return {
        action: 'stop',
        outcome: 'interrupted',
        why: fast
          ? `crash loop: 3 failures in a row, each under ${cfg.crashWindowMs / 1000} s`
          : '3 unrecognised failures in a row',
      };
    }
  }
}

export type UsageDecision =
  { action: 'wait'; untilMs: number; named: boolean } | { action: 'stop'; outcome: 'failed'; why: string };

/**
 * A spent usage window is not a failure: wait for the reset it names (at least baseMs, so
 * a reset already past cannot spin), or recheck after usageRecheckMs when it names none.
 * A reset further away than usageMaxWaitMs (a weekly or monthly cycle) outlives any turn
 * worth keeping open: stop, and let a human decide.
 */
export function usageWait(resetAt: string | undefined, nowMs: number, cfg: RetryConfig = DEFAULT_RETRY): UsageDecision {
  if (!resetAt) return { action: 'wait', untilMs: nowMs + cfg.usageRecheckMs, named: false };
  const at = Date.parse(resetAt);
  if (at - nowMs > cfg.usageMaxWaitMs) {
    return {
      action: 'stop',
      outcome: 'failed',
      why:
        `it resets at ${resetAt}, more than ${Math.round(cfg.usageMaxWaitMs / 60_000)} min away ` +
        `(usage_limit_max_wait_ms): not waited on`,
    };
  }
  return { action: 'wait', untilMs: Math.max(at, nowMs + cfg.baseMs), named: true };
}
