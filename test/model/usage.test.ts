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
