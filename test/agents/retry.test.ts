import t from 'tap';
import {
  decide,
  delayFor,
  usageWait,
  DEFAULT_RETRY,
  type Attempt,
  type Decision,
} from '../../lib/agents/supervisor/retry.js';
import type { FailureClass } from '../../lib/agents/adapters/taxonomy.js';

// The retry ladder: a pure function of the failures so far. Reference
// (lazy-state-machine.md, "Retry pacing"): transients are paced 5 s → 10 s → 20 s → 40 s →
// 60 s (capped), roughly 60 retries an hour; the crash-loop detector (3 failures under
// 10 s each) is off for transients and the bound for unknown; transient_unreachable is
// retried generously but escalates to a stop after its cap.

const run = (cls: FailureClass, n: number, durationMs = 100): Attempt[] =>
  Array.from({ length: n }, () => ({ cls, durationMs }));
const retry = (delayMs: number): Decision => ({ action: 'retry', delayMs });
const { transientMax, unreachableMax } = DEFAULT_RETRY;

t.test('delayFor: the ladder', async (t) => {
  const rows: [n: number, base: number, ms: number][] = [
    [0, 5000, 5000],
    [1, 5000, 10_000],
    [2, 5000, 20_000],
    [3, 5000, 40_000],
    [4, 5000, 60_000],
    [5, 5000, 60_000],
    [100, 5000, 60_000],
    [0, 1000, 1000],
    [4, 1000, 12_000],
  ];
  for (const [n, base, ms] of rows) t.equal(delayFor(n, base), ms, `attempt ${n + 1} at base ${base}: ${ms} ms`);
});

t.test('decide: one row per history', async (t) => {
  const rows: [pins: string, history: Attempt[], decision: Decision | RegExp][] = [
    ['no failure yet: go at once', [], retry(0)],
    // Difference: vincent's agent_unauthenticated retries then blocks; a fatal class here stops at once.
    ['fatal_auth is never retried', run('fatal_auth', 1), /^stop failed fatal_auth is not retried$/],
    ['fatal_config is never retried', run('fatal_config', 1), /^stop failed fatal_config is not retried$/],
    [
      'a fatal class after transients still stops',
      [...run('transient_overload', 3), ...run('fatal_auth', 1)],
      /^stop failed fatal_auth/,
    ],
    ['overload, 1st: 5 s', run('transient_overload', 1), retry(5000)],
    ['overload, 2nd: 10 s', run('transient_overload', 2), retry(10_000)],
    ['overload, 3rd: 20 s', run('transient_overload', 3), retry(20_000)],
    ['overload, 4th: 40 s', run('transient_overload', 4), retry(40_000)],
    ['overload, 5th: 60 s (the cap)', run('transient_overload', 5), retry(60_000)],
    ['network paces the same', run('transient_network', 3), retry(20_000)],
    [
      'overload and network share one streak',
      [...run('transient_overload', 1), ...run('transient_network', 1), ...run('transient_overload', 1)],
      retry(20_000),
    ],
    ['the crash-loop detector is off for fast transients', run('transient_overload', 3, 10), retry(20_000)],
    [
      `the last transient within budget (${transientMax - 1})`,
      run('transient_network', transientMax - 1),
      retry(60_000),
    ],
    [
      `the transient budget (${transientMax}) is spent: stop, failed`,
      run('transient_overload', transientMax),
      /^stop failed retry budget spent after 60 attempts$/,
    ],
    [
      'an unknown failure breaks a transient streak',
      [...run('transient_overload', transientMax - 1), ...run('unknown', 1), ...run('transient_overload', 1)],
      retry(5000),
    ],
    ['unreachable, 1st: 5 s', run('transient_unreachable', 1), retry(5000)],
    [
      `unreachable within its cap (${unreachableMax - 1})`,
      run('transient_unreachable', unreachableMax - 1),
      retry(60_000),
    ],
    [
      `unreachable at its cap (${unreachableMax}): stop, failed`,
      run('transient_unreachable', unreachableMax),
      /^stop failed gave up after 10 attempts: the agent's endpoint stayed unreachable$/,
    ],
    [
      'unreachable keeps its own streak, apart from overload',
      [...run('transient_overload', 4), ...run('transient_unreachable', 1)],
      retry(5000),
    ],
    [
      'overload after unreachable starts its own streak',
      [...run('transient_unreachable', unreachableMax - 1), ...run('transient_overload', 1)],
      retry(5000),
    ],
    ['unknown, 1st: 5 s', run('unknown', 1), retry(5000)],
    ['unknown, 2nd: 10 s', run('unknown', 2), retry(10_000)],
    [
      'unknown, 3 fast in a row: the crash loop stops, interrupted (auto-resume decides next)',
      run('unknown', 3, 500),
      /^stop interrupted crash loop: 3 failures in a row, each under 10 s$/,
    ],
    [
      'unknown, 3 slow in a row: stop, interrupted',
      run('unknown', 3, 20_000),
      /^stop interrupted 3 unrecognised failures in a row$/,
    ],
    [
      'only the last three count for speed',
      [...run('unknown', 1, 20_000), ...run('unknown', 3, 500)],
      /^stop interrupted crash loop/,
    ],
    [
      'one slow failure among the last three: not a crash loop',
      [...run('unknown', 1, 500), ...run('unknown', 1, 20_000), ...run('unknown', 1, 500)],
      /^stop interrupted 3 unrecognised/,
    ],
    [
      'a failure lasting exactly the crash window is not fast',
      run('unknown', 3, DEFAULT_RETRY.crashWindowMs),
      /^stop interrupted 3 unrecognised/,
    ],
    [
      'a transient breaks an unknown run',
      [...run('unknown', 2), ...run('transient_overload', 1), ...run('unknown', 1)],
      retry(5000),
    ],
    ['usage_limit never enters a history; if it does, it waits one base step', run('usage_limit', 1), retry(5000)],
  ];
  for (const [pins, history, expected] of rows) {
    const d = decide(history);
    if (expected instanceof RegExp) {
      t.equal(d.action, 'stop', `${pins}: stop`);
      t.match(d.action === 'stop' ? `stop ${d.outcome} ${d.why}` : '', expected, pins);
    } else t.same(d, expected, pins);
  }
});

t.test('decide: the configuration moves every bound', async (t) => {
  const cfg = { ...DEFAULT_RETRY, baseMs: 1000, transientMax: 3, unreachableMax: 2, crashWindowMs: 50 };
  t.same(decide(run('transient_overload', 2), cfg), retry(2000), 'base 1 s: the 2nd retry waits 2 s');
  t.match(decide(run('transient_overload', 3), cfg), { action: 'stop', outcome: 'failed' }, 'transientMax 3');
  t.match(decide(run('transient_unreachable', 2), cfg), { action: 'stop', outcome: 'failed' }, 'unreachableMax 2');
  t.match(
    decide(run('unknown', 3, 100), cfg),
    { why: /unrecognised/ },
    'a 100 ms failure is slow against a 50 ms window',
  );
  t.match(
    decide(run('unknown', 3, 10), cfg),
    { why: 'crash loop: 3 failures in a row, each under 0.05 s' },
    'the crash loop names the window it was judged by',
  );
});

t.test('reference: roughly 60 transient retries an hour, where the old ladder managed about 12', async (t) => {
  let waited = 0;
  let n = 0;
  const history: Attempt[] = [];
  for (;;) {
    history.push({ cls: 'transient_overload', durationMs: 1000 });
    const d = decide(history);
    if (d.action === 'stop') break;
    if (waited + d.delayMs > 3_600_000) break;
    waited += d.delayMs;
    n++;
  }
  t.ok(n >= 55 && n <= 60, `${n} retries fit in the first hour`);
  t.equal(history.length, n + 1, 'the budget (60) is spent before the hour is');
});

t.test('usageWait: a spent usage window waits for its reset and costs no retry', async (t) => {
  const now = Date.parse('2026-12-01T10:00:00Z');
  const rows: [pins: string, resetAt: string | undefined, expected: object][] = [
    [
      'no reset named: check again after the recheck interval',
      undefined,
      { action: 'wait', untilMs: now + DEFAULT_RETRY.usageRecheckMs, named: false },
    ],
    [
      'a reset named two hours ahead: wait for it',
      '2026-12-01T12:00:00Z',
      { action: 'wait', untilMs: Date.parse('2026-12-01T12:00:00Z'), named: true },
    ],
    [
      'a reset already past: wait one base step, never spin',
      '2026-12-01T09:00:00Z',
      { action: 'wait', untilMs: now + DEFAULT_RETRY.baseMs, named: true },
    ],
    [
      'a reset exactly at the longest wait: still waited',
      new Date(now + DEFAULT_RETRY.usageMaxWaitMs).toISOString(),
      { action: 'wait', untilMs: now + DEFAULT_RETRY.usageMaxWaitMs, named: true },
    ],
    [
      'a reset beyond the longest wait (a monthly cycle): stop, failed, and say why',
      '2026-12-19T00:00:00Z',
      {
        action: 'stop',
        outcome: 'failed',
        why: 'it resets at 2026-12-19T00:00:00Z, more than 360 min away (usage_limit_max_wait_ms): not waited on',
      },
    ],
  ];
  for (const [pins, resetAt, expected] of rows) t.same(usageWait(resetAt, now), expected, pins);
  const cfg = { ...DEFAULT_RETRY, usageRecheckMs: 1000, usageMaxWaitMs: 60_000 };
  t.same(
    usageWait(undefined, now, cfg),
    { action: 'wait', untilMs: now + 1000, named: false },
    'the recheck is configured',
  );
  t.match(
    usageWait(new Date(now + 120_000).toISOString(), now, cfg),
    { action: 'stop', why: /more than 1 min away/ },
    'so is the longest wait',
  );
});
