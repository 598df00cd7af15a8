import t from 'tap';
import { decide, delayFor, DEFAULT_RETRY, usageWait, type Attempt } from '../../lib/agents/supervisor/retry.js';

// The supervisor's pacing: the retry ladder, and how long a spent usage window is waited on.

t.test('retry pacing: 5, 10, 20, 40, then every 60 s', async (t) => {
  t.same(
    [0, 1, 2, 3, 4, 5, 9].map((n) => delayFor(n, 5000)),
    [5000, 10000, 20000, 40000, 60000, 60000, 60000],
  );
  const h = (cls: Attempt['cls'], n: number, ms = 100): Attempt[] =>
    Array.from({ length: n }, () => ({ cls, durationMs: ms }));
  t.same(decide(h('transient_overload', 1)), { action: 'retry', delayMs: 5000 });
  t.same(decide(h('transient_network', 5)), { action: 'retry', delayMs: 60000 });
  t.equal(decide(h('transient_overload', 2)).action, 'retry', 'the crash-loop detector does not apply to transients');
  t.match(
    decide(h('transient_unreachable', DEFAULT_RETRY.unreachableMax)),
    { action: 'stop', outcome: 'failed' },
    'unreachable gives up after a bounded number',
  );
  t.equal(decide(h('transient_unreachable', DEFAULT_RETRY.unreachableMax - 1)).action, 'retry');
  t.match(decide(h('fatal_auth', 1)), { action: 'stop', outcome: 'failed' });
  t.match(decide(h('unknown', 3, 500)), { action: 'stop', outcome: 'interrupted', why: /crash loop/ });
  t.match(decide(h('unknown', 3, 20_000)), { action: 'stop', outcome: 'interrupted', why: /3 unrecognised failures/ });
  t.equal(decide(h('unknown', 2)).action, 'retry');
});

t.test('usage waits: the named reset, a recheck, or a block when far away', async (t) => {
  const now = Date.parse('2026-12-01T10:00:00Z');
  t.same(usageWait('2026-12-01T12:00:00Z', now), {
    action: 'wait',
    untilMs: Date.parse('2026-12-01T12:00:00Z'),
    named: true,
  });
  t.same(usageWait(undefined, now), { action: 'wait', untilMs: now + DEFAULT_RETRY.usageRecheckMs, named: false });
  t.same(
    usageWait('2026-12-01T09:00:00Z', now),
    { action: 'wait', untilMs: now + DEFAULT_RETRY.baseMs, named: true },
    'a reset already past cannot spin',
  );
  t.match(usageWait('2026-12-19T00:00:00Z', now), {
    action: 'stop',
    outcome: 'failed',
    why: /resets at 2026-12-19T00:00:00Z, more than 360 min away/,
  });
});
