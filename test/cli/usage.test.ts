import t from 'tap';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { agentSandbox, shellScript, type AgentBox } from '../helpers/agent.js';
import { ROOT } from '../helpers/env.js';

t.jobs = 2;

// Issue 32, lazy usage: what the agents cost, from real turns of the fake agent (claude's dialect: usage and a
// reported cost) and a recorded codex stream (usage, no cost), read from the listing index; grouped by task,
// agent, model, UTC day and ISO week; bounded by --since/--until; priced by config where no agent reported a cost,
// and an unknown cost never counted as 0.

const CODEX = join(ROOT, 'test', 'fixtures', 'agents', 'codex-0.171.0');
const DAY_MS = 86_400_000;
const day = (iso: string) => iso.slice(0, 10);

/** Launch to end of each agent turn, as the task's own history says (the move into working that names its run). */
function spans(task: any): number[] {
  return task.turns
    .filter((x: any) => x.role === 'agent')
    .map((x: any) => {
      const launch = task.changelog.find((c: any) => c.run === x.run && c.status === 'working');
      return (Date.parse(x.timestamp) - Date.parse(launch.timestamp)) / 1000;
    });
}

/** Task A: two claude turns two days apart; task B: one codex turn (model gpt-test) on the second day. */
async function history(box: AgentBox) {
  const { l } = box;
  const replay = shellScript(box.sb, 'codex-replay', `cat '${CODEX}/success-text.stdout'\n`);
  await l('config', 'set', 'agents.cx.command', replay);
  await l('config', 'set', 'agents.cx.adapter', 'codex');
  const a = await l.create('count my tokens', '--accept', 'done');
  await l('start', a);
  await l('wait', a, '--timeout', '30');
  box.clock.advance(2 * DAY_MS);
  await l('unblock', a, '-m', 'once more');
  await l('wait', a, '--timeout', '30');
  const b = await l.create('a codex task', '--accept', 'done', '--agent', 'cx', '--model', 'gpt-test');
  await l('start', b);
  await l('wait', b, '--timeout', '30');
  const shown = async (id: string) => (await l.json('show', id)).value;
  return { a: await shown(a), b: await shown(b) };
}

const CLAUDE_TURN = {
  input_tokens: 100,
  output_tokens: 20,
  cache_read_input_tokens: 3000,
  cache_creation_input_tokens: 400,
};

t.test('usage sums tokens, cost and agent time per group, from the turns the agents recorded', async (t) => {
  const box = await agentSandbox({ adapter: 'claude' });
  t.teardown(box.sb.cleanup);
  const { l } = box;
  const { a, b } = await history(box);
  const aTurns = a.turns.filter((x: any) => x.role === 'agent');
  const bTurn = b.turns.find((x: any) => x.role === 'agent');
  t.equal(aTurns.length, 2);
  t.equal(bTurn.details.model, 'gpt-test', 'the codex turn recorded its model');

  const r = (await l.json('usage')).value;
  t.equal(r.by, 'task', 'by task by default');
  t.same(
    r.groups.map((g: any) => [g.key, g.goal, g.turns]),
    [
      [a.id, 'count my tokens', 2],
      [b.id, 'a codex task', 1],
    ],
    'one group per task, in list order',
  );
  const [ga, gb] = r.groups;
  t.match(ga, {
    input_tokens: 200,
    output_tokens: 40,
    cache_read_input_tokens: 6000,
    cache_creation_input_tokens: 800,
    unpriced_turns: 0,
  });
  t.ok(Math.abs(ga.cost_usd - 0.002) < 1e-12, `claude's reported cost is summed (${ga.cost_usd})`);
  const aSeconds = spans(a).reduce((x, y) => x + y, 0);
  t.ok(aSeconds > 0);
  t.ok(Math.abs(ga.agent_seconds - aSeconds) < 0.01, `agent time: launch to end of each turn (${ga.agent_seconds})`);
  t.match(gb, { input_tokens: 100, output_tokens: 10, cost_usd: null, unpriced_turns: 1 }, 'codex reports no cost');
  t.match(r.total, { turns: 3, input_tokens: 300, output_tokens: 50, unpriced_turns: 1 });
  t.ok(Math.abs(r.total.cost_usd - 0.002) < 1e-12, 'the total sums the known costs only');

  // Text: piped, tab-separated cells; an unknown cost says so and is never $0.
  const text = (await l('usage')).stdout;
  const line = (key: string) =>
    text
      .split('\n')
      .find((x) => x.startsWith(`${key}\t`))!
      .split('\t');
  t.same(line(a.id).slice(1, 7), ['2', '200', '40', '6k', '800', '$0.0020']);
  t.same(line(b.id).slice(5, 7), ['0', 'unknown (1 unpriced)']);
  t.equal(line('total')[6], '$0.0020 + 1 unpriced');
  t.notMatch(line(b.id).join(' '), /\$0(\.0+)?\b/, 'no $0 for an unknown cost');

  // A price for the model: the codex turn is priced (100 in at $2/M + 10 out at $10/M), the claude ones keep theirs.
  t.equal((await l('config', 'set', 'pricing.gpt-test.input', '2')).code, 0);
  t.equal((await l('config', 'set', 'pricing.gpt-test.output', '10')).code, 0);
  const priced = (await l.json('usage')).value;
  t.ok(Math.abs(priced.groups[1].cost_usd - 0.0003) < 1e-12, `priced by the table (${priced.groups[1].cost_usd})`);
  t.equal(priced.total.unpriced_turns, 0);
  t.ok(Math.abs(priced.total.cost_usd - 0.0023) < 1e-12);

  const agents = (await l.json('usage', '--by', 'agent')).value;
  t.same(
    agents.groups.map((g: any) => [g.key, g.turns]),
    [
      ['cx', 1],
      ['fake', 2],
    ],
  );
  const models = (await l.json('usage', '--by', 'model')).value;
  t.same(
    models.groups.map((g: any) => [g.key, g.turns]),
    [
      ['(default)', 2],
      ['gpt-test', 1],
    ],
    "a turn with no model ran with its CLI's default",
  );

  const first = day(aTurns[0].timestamp);
  const second = day(aTurns[1].timestamp);
  const days = (await l.json('usage', '--by', 'day')).value;
  t.same(
    days.groups.map((g: any) => [g.key, g.turns]),
    [
      [first, 1],
      [second, 2],
    ],
    'by UTC day',
  );
  const weeks = (await l.json('usage', '--by', 'week')).value;
  t.ok(
    weeks.groups.every((g: any) => /^\d{4}-W\d\d$/.test(g.key)),
    weeks.groups.map((g: any) => g.key),
  );
  t.equal(
    weeks.groups.reduce((n: number, g: any) => n + g.turns, 0),
    3,
  );

  // Dates are whole UTC days, --until included; an ISO time bounds to the millisecond.
  const until = (await l.json('usage', '--until', first)).value;
  t.equal(until.total.turns, 1, '--until the first day: its turn only');
  t.equal(until.until, `${first}T23:59:59.999Z`);
  t.same(
    until.groups.map((g: any) => g.key),
    [a.id],
  );
  t.equal((await l.json('usage', '--since', second)).value.total.turns, 2, '--since the second day');
  t.equal((await l.json('usage', '--since', first, '--until', second)).value.total.turns, 3);
  const exact = (await l.json('usage', '--since', aTurns[1].timestamp)).value;
  t.equal(exact.total.turns, 2, 'an ISO time: the turn that ended then, and later ones');
  const none = (await l.json('usage', '--since', '2999-01-01')).value;
  t.same(none.groups, []);
  t.match(none.total, { turns: 0, cost_usd: null, unpriced_turns: 0, agent_seconds: 0 });
  t.match((await l('usage', '--since', '2999-01-01')).stdout, /no agent turns/);
});

t.test('a bad date or grouping is refused, naming it (exit 2)', async (t) => {
  const box = await agentSandbox();
  t.teardown(box.sb.cleanup);
  for (const [flag, value] of [
    ['--since', '2026-13-01'],
    ['--until', 'yesterday'],
    ['--since', '2026-02-30'],
  ] as const) {
    const r = await box.l.json('usage', flag, value);
    t.equal(r.run.code, 2, `${flag} ${value}`);
    t.equal(r.value.error.code, 'usage');
    t.match(r.value.error.message, flag);
    t.match(r.value.error.message, value);
  }
  t.equal((await box.l('usage', '--by', 'month')).code, 2);
});

t.test('the spawned CLI: lazy usage prints its report, and refuses a bad date with exit 2', async (t) => {
  const box = await agentSandbox({ adapter: 'claude' });
  t.teardown(box.sb.cleanup);
  const id = await box.l.create('spend a little', '--accept', 'done');
  await box.l('start', id);
  await box.l('wait', id, '--timeout', '30');
  const r = await box.l.spawn('usage', '--by', 'model', '--json');
  t.equal(r.code, 0, r.stderr);
  const v = JSON.parse(r.stdout);
  t.match(v, { by: 'model', groups: [{ key: '(default)', turns: 1, ...CLAUDE_TURN, unpriced_turns: 0 }] });
  t.equal(v.total.cost_usd, 0.001);
  // Without the index's spend file (an older lazy's index, an interrupted write) the detail rows give the same report.
  const spendFile = join(box.sb.dir, '.git', 'lazy', 'index-spend.json');
  t.ok(existsSync(spendFile), 'the index keeps a spend file');
  rmSync(spendFile);
  t.same((await box.l.json('usage', '--by', 'model')).value, v, 'the same from the detail rows');
  const text = await box.l.spawn('usage');
  t.equal(text.code, 0);
  t.match(text.stdout, new RegExp(`^${id}\\t1\\t100\\t20\\t3k\\t400\\t\\$0\\.0010\\t\\d+s\\tspend a little$`, 'm'));
  const bad = await box.l.spawn('usage', '--until', 'soon');
  t.equal(bad.code, 2);
  t.match(bad.stderr, /--until/);
});

t.test('pricing.<model>.<kind>: a decimal per million tokens, a model name with dots', async (t) => {
  const box = await agentSandbox();
  t.teardown(box.sb.cleanup);
  const { l } = box;
  t.equal((await l('config', 'set', 'pricing.claude-sonnet-4.input', '3')).code, 0);
  t.equal((await l('config', 'set', 'pricing.claude-sonnet-4.5.cache_read', '0.3')).code, 0);
  t.equal((await l.json('config', 'get', 'pricing.claude-sonnet-4.input')).value.value, 3);
  t.equal((await l.json('config', 'get', 'pricing.claude-sonnet-4.5.cache_read')).value.value, 0.3);
  const bad = await l.json('config', 'set', 'pricing.claude-sonnet-4.output', 'cheap');
  t.equal(bad.run.code, 2);
  t.match(bad.value.error.message, /US dollars per million tokens/);
  t.equal((await l('config', 'set', 'pricing.claude-sonnet-4.speed', '1')).code, 2, 'an unknown kind of token');
  t.equal((await l('config', 'unset', 'pricing.claude-sonnet-4.input')).code, 0);
  t.equal((await l.json('config', 'get', 'pricing.claude-sonnet-4.input')).value.value, null);
});
