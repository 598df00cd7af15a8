import t from 'tap';
import { lastCumulative, taskUsage, usageOf, usageSince, type Usage } from '../../lib/model/usage.js';

// Token usage in one shape (lib/model/usage.ts): the normalized fields, a thread's cumulative
// report turned into one turn's share, and the per-task totals show and list print.

const u = (input: number, output: number, read = 0, write = 0): Usage => ({
  input_tokens: input,
  output_tokens: output,
  cache_read_input_tokens: read,
  cache_creation_input_tokens: write,
});
const agent = (details: Record<string, any>) => ({ role: 'agent', details });

t.test('usageOf keeps the four counts, 0 for anything missing or not a count', async (t) => {
  t.strictSame(
    usageOf({ input_tokens: 5, output_tokens: 2, cache_read_input_tokens: 7, service_tier: 'x' }),
    u(5, 2, 7, 0),
  );
  t.strictSame(usageOf({ input_tokens: -3, output_tokens: '9', cache_creation_input_tokens: NaN }), u(0, 0));
  t.strictSame(usageOf(null), u(0, 0));
});

t.test('usageSince: the difference from the previous report; a counter that went down started over', async (t) => {
  t.strictSame(usageSince(u(300, 30, 50, 5), u(100, 10, 20, 5)), u(200, 20, 30, 0));
  t.strictSame(usageSince(u(100, 10), undefined), u(100, 10), 'no previous report: all of it');
  t.strictSame(usageSince(u(40, 50), u(100, 10)), u(40, 50), 'a new thread is not a negative turn');
});

t.test('lastCumulative: the latest agent turn of the same session that recorded one', async (t) => {
  const turns = [
    agent({ agent_session_id: 's1', usage_cumulative: u(100, 10) }),
    agent({ agent_session_id: 's2', usage_cumulative: u(900, 90) }),
    agent({ agent_session_id: 's1', usage: u(1, 1) }),
    { role: 'user', details: { agent_session_id: 's1', usage_cumulative: u(5000, 5000) } },
  ];
  t.strictSame(lastCumulative(turns, 's1'), u(100, 10));
  t.strictSame(lastCumulative(turns, 's2'), u(900, 90));
  t.equal(lastCumulative(turns, 's3'), undefined);
  t.equal(lastCumulative(turns, undefined), undefined);
});

t.test('taskUsage sums agent turns; cost only where an agent reported one', async (t) => {
  const claude = [
    agent({ usage: u(100, 20, 3000, 400), cost_usd: 0.5 }),
    agent({ usage: u(1, 2, 3, 4), cost_usd: 0.25 }),
  ];
  t.strictSame(taskUsage(claude), { ...u(101, 22, 3003, 404), cost_usd: 0.75 });
  const codex = [agent({ usage: u(100, 10), usage_cumulative: u(100, 10) }), agent({ usage: u(100, 10) })];
  t.strictSame(taskUsage(codex), { ...u(200, 20), cost_usd: null }, 'codex reports no cost: null, not 0');
  t.strictSame(taskUsage([{ role: 'user', details: { usage: u(9, 9) } }, agent({})]), { ...u(0, 0), cost_usd: null });
});

t.test(
  "turnSpends: each agent turn's record, its agent time from its run's launch less its subtask waits",
  async (t) => {
    const { turnSpends } = await import('../../lib/model/usage.js');
    const changelog = [
      { run: 'r1', status: 'working', timestamp: '2026-12-01T10:00:00.000Z' },
      { run: null, status: 'blocked', timestamp: '2026-12-01T10:05:00.000Z' },
    ];
    const turns: any[] = [
      { role: 'person', run: null, timestamp: '2026-12-01T09:59:00.000Z', details: null },
      {
        role: 'agent',
        run: 'r1',
        timestamp: '2026-12-01T10:05:00.000Z',
        details: { agent: 'claude', model: 'm', usage: u(10, 2, 3, 4), cost_usd: 0.5, waited_seconds: 120.5 },
      },
      // An ask's run: no move into working on record here, its prompt turn says when it began.
      { role: 'person', run: 'r2', timestamp: '2026-12-02T08:00:00.000Z', details: null },
      { role: 'agent', run: 'r2', timestamp: '2026-12-02T08:00:30.250Z', details: { usage: u(1, 1) } },
      // No start on record: no agent time, not a negative or a guessed one.
      { role: 'agent', run: 'r9', timestamp: '2026-12-03T08:00:00.000Z', details: { usage: u(1, 0) } },
    ];
    t.strictSame(turnSpends(turns, changelog), [
      ['2026-12-01T10:05:00.000Z', 'claude', 'm', 10, 2, 3, 4, 0.5, 179.5],
      ['2026-12-02T08:00:30.250Z', null, null, 1, 1, 0, 0, null, 30.25],
      ['2026-12-03T08:00:00.000Z', null, null, 1, 0, 0, 0, null, null],
    ]);
    const waitedLonger = [{ ...turns[1]!, details: { ...turns[1]!.details, waited_seconds: 900 } }];
    t.equal(
      turnSpends(waitedLonger, changelog)[0]![8],
      0,
      'a wait longer than the turn (clock skew) is not negative time',
    );
  },
);
