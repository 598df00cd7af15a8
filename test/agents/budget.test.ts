import t from 'tap';
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { agentSandbox, crashSettled } from '../helpers/agent.js';
import { machines } from '../helpers/fleet.js';
import { spentOf, taskBudgetReached, tokensText } from '../../lib/model/budget.js';

t.jobs = 4;

// Budgets (lib/agents/budget.ts): checked before every launch, from the task's recorded usage and config. A task
// past its budget is not launched: it is left blocked with `budget reached: …`, the command exits 4, and raising
// the budget (config, or unblock --budget for one task) lets it go on. The fake agent's claude dialect reports
// 3,520 tokens and $0.001 a successful turn.

const last = (v: any) => v.changelog.at(-1);

t.test(
  'a token budget: unblock refused with exit 4 and the attention; --budget for one task; config lets all go',
  async (t) => {
    const box = await agentSandbox({ adapter: 'claude', settings: { 'budget.task_tokens': '3000' } });
    t.teardown(box.sb.cleanup);
    const { l } = box;
    const a = await l.create('first', '--accept', 'done');
    const b = await l.create('second', '--accept', 'done');
    for (const id of [a, b]) {
      t.equal((await l('start', id)).code, 0, 'nothing spent yet: it launches');
      t.equal((await l.json('wait', id, '--timeout', '60')).value.task.status, 'blocked');
    }

    const refused = await l.json('unblock', a, '-m', 'go on');
    t.equal(refused.run.code, 4, 'exit 4');
    t.match(refused.value.error, {
      code: 'action_not_allowed',
      message: /was not launched: budget reached: 3\.5k of 3k tokens; raise budget\.task_tokens/,
      details: {
        action: 'unblock',
        status: 'blocked',
        guard: 'budget',
        budget: 'task_tokens',
        spent: 3520,
        limit: 3000,
      },
    });
    const shown = (await l.json('show', a)).value;
    t.equal(shown.status, 'blocked');
    t.same(shown.attention.kind, 'failure');
    t.equal(shown.attention.reason, 'budget reached: 3.5k of 3k tokens');
    t.match(last(shown), { from: 'blocked', status: 'blocked', trigger: 'budget', actor: 'system' });
    t.equal(box.invocations().length, 2, 'no agent was launched');
    const entries = shown.changelog.length;
    t.equal((await l('unblock', a, '-m', 'again')).code, 4, 'refused again');
    t.equal((await l.json('show', a)).value.changelog.length, entries, 'a second refusal writes nothing');
    const inbox = await l.json('inbox');
    t.match(
      inbox.value.find((x: any) => x.id === a)?.attention,
      { kind: 'failure', reason: 'budget reached: 3.5k of 3k tokens' },
      'in the inbox',
    );
    t.match((await l('show', a)).stdout, /budget reached: 3\.5k of 3k tokens/, 'show says so');

    // Raised for this task only.
    const raised = await l.json('unblock', a, '-m', 'go on', '--budget', '10000');
    t.equal(raised.run.code, 0, raised.run.stderr);
    t.same(raised.value.task.budget, { tokens: 10000 }, 'the task records its own budget');
    t.equal((await l.json('wait', a, '--timeout', '60')).value.task.status, 'blocked');
    t.equal((await l('unblock', b, '-m', 'go on')).code, 4, 'the other task is still held by the config');
    t.equal((await l('unblock', b, '-m', 'x', '--budget', '-1')).code, 2, 'a budget is a count of tokens');

    // Raised in config: every task goes on.
    t.equal((await l('config', 'set', 'budget.task_tokens', '100000')).code, 0);
    t.equal((await l('unblock', b, '-m', 'go on')).code, 0);
    t.equal((await l.json('wait', b, '--timeout', '60')).value.task.status, 'blocked');
    t.equal((await l('config', 'set', 'budget.task_tokens', 'lots')).code, 2, 'a whole number');
  },
);

t.test('start refused: a zero budget leaves the backlog task blocked with the reason', async (t) => {
  const box = await agentSandbox({ adapter: 'claude', settings: { 'budget.task_tokens': '0' } });
  t.teardown(box.sb.cleanup);
  const id = await box.l.create('never', '--accept', 'done');
  const s = await box.l.json('start', id);
  t.equal(s.run.code, 4);
  t.match(s.value.error.details, { action: 'start', budget: 'task_tokens', spent: 0, limit: 0 });
  const v = (await box.l.json('show', id)).value;
  t.match(last(v), { from: 'backlog', status: 'blocked', trigger: 'budget' });
  t.equal(v.attention.reason, 'budget reached: 0 of 0 tokens');
  t.equal(box.invocations().length, 0, 'no agent ran');
  t.match((await box.l.json('config', 'get', 'budget.auto_resumes_per_day')).value, { value: 50, origin: 'default' });
  t.equal((await box.l('config', 'unset', 'budget.task_tokens')).code, 0, 'unset: no limit');
  t.equal((await box.l('unblock', id, '-m', 'go')).code, 0);
  t.equal((await box.l.json('wait', id, '--timeout', '60')).value.task.status, 'blocked');
});

t.test('a cost budget: priced by the pricing table; an unpriced turn cannot prove the budget reached', async (t) => {
  // codex's dialect reports 12 tokens and no cost: only the table prices it ($0.10 a token here: $1.20 a turn).
  const box = await agentSandbox({
    settings: { 'agents.fake.adapter': 'codex', 'agents.fake.model': 'gpt-x', 'budget.task_cost_usd': '1' },
  });
  t.teardown(box.sb.cleanup);
  box.scenario('ran-commands');
  const id = await box.l.create('priced', '--accept', 'done');
  t.equal((await box.l('start', id)).code, 0);
  const done = (await box.l.json('wait', id, '--timeout', '60')).value.task;
  t.equal(done.status, 'blocked');
  t.equal((await box.l('unblock', id, '-m', 'unpriced: not proven over')).code, 0, 'an unknown cost launches');
  await box.l.json('wait', id, '--timeout', '60');

  appendFileSync(
    join(box.sb.dir, '.git', 'lazy', 'config.yaml'),
    'pricing:\n  gpt-x:\n    input: 100000\n    output: 100000\n',
  );
  const r = await box.l.json('unblock', id, '-m', 'priced now');
  t.equal(r.run.code, 4, r.run.stderr);
  t.match(r.value.error.details, { budget: 'task_cost_usd', spent: 2.4, limit: 1 });
  t.equal((await box.l.json('show', id)).value.attention.reason, 'budget reached: $2.40 of $1.00');
  t.equal((await box.l('unblock', id, '-m', 'more', '--budget-usd', '5')).code, 0, '--budget-usd raises it');
  t.equal((await box.l.json('wait', id, '--timeout', '60')).value.task.status, 'blocked');
});

t.test('the daily cap on auto-resumes stops the third; a person resumes it, and a day later it is free', async (t) => {
  const box = await agentSandbox({ settings: { 'budget.auto_resumes_per_day': '2' } });
  t.teardown(box.sb.cleanup);
  const { l } = box;
  const crashThenResume = async (goal: string) => {
    const id = await l.create(goal, '--accept', 'done');
    box.next('crash');
    const s = await l.json('start', id);
    t.equal(s.run.code, 0);
    await crashSettled(box.sb, s.value.run.id);
    box.next('succeed');
    return { id, list: await l('list') };
  };
  for (const goal of ['one', 'two']) {
    const { id } = await crashThenResume(goal);
    const v = (await l.json('wait', id, '--timeout', '60')).value.task;
    t.ok(
      v.changelog.some((c: any) => c.trigger === 'auto_resume'),
      `${goal}: auto-resumed`,
    );
  }
  const { id, list } = await crashThenResume('three');
  t.match(list.stderr, /budget reached: auto-resumes: 2 of 2 today/, 'the command that found it says so');
  const v = (await l.json('show', id)).value;
  t.equal(v.status, 'blocked', 'left for a person');
  t.match(last(v), { from: 'interrupted', status: 'blocked', trigger: 'budget', actor: 'system' });
  t.equal(v.attention.reason, 'budget reached: auto-resumes: 2 of 2 today');
  t.ok(
    (await l.json('inbox')).value.some((x: any) => x.id === id),
    'in the inbox',
  );
  t.equal(box.invocations().length, 5, 'the third was not resumed');
  box.next('succeed');
  t.equal((await l('unblock', id, '-m', 'go on')).code, 0, 'a person goes on by hand: the cap holds only auto-resumes');
  t.equal((await l.json('wait', id, '--timeout', '60')).value.task.status, 'blocked');

  // A day later the cap counts nothing: another crash is auto-resumed again.
  box.clock.advance(25 * 60 * 60 * 1000);
  const later = await crashThenResume('four');
  t.equal(later.list.stderr, '', 'no budget warning');
  const w = (await l.json('wait', later.id, '--timeout', '60')).value.task;
  t.ok(
    w.changelog.some((c: any) => c.trigger === 'auto_resume'),
    'auto-resumed a day later',
  );
});

t.test('a fleet worker does not claim a task over budget, and does not loop on it', async (t) => {
  const { tm, boxes } = await machines(2, { FAKE_SCENARIO: 'succeed' }, 'lazy-budget');
  t.teardown(tm.cleanup);
  const [seed, worker] = boxes;
  const id = await seed!.l.create('over budget', '--accept', 'done');
  t.equal((await seed!.l('queue', id)).code, 0);
  t.equal((await seed!.l('push')).code, 0);
  t.equal((await worker!.l('config', 'set', 'budget.task_tokens', '0', '--local')).code, 0);
  const r = await worker!.l.json('work', 'origin', '--drain');
  t.equal(r.run.code, 0, r.run.stderr);
  t.same(r.value.claimed, [], 'nothing claimed');
  t.match(r.run.stderr, new RegExp(`task ${id} skipped: .*budget reached: 0 of 0 tokens`), 'it says why, once');
  t.equal(r.run.stderr.split('budget reached').length - 1, 1, 'the task is skipped, not retried');
  t.equal((await seed!.l('pull')).code, 0);
  const v = (await seed!.l.json('show', id)).value;
  t.equal(v.status, 'backlog', 'the remote task is untouched');
});

t.test('model: tokens sum every kind; a cost budget counts only known costs and says how many were unpriced', (t) => {
  const turn = (usage: object, extra: object = {}) => ({ role: 'agent' as const, details: { usage, ...extra } as any });
  const s = spentOf(
    [
      turn({ input_tokens: 1000, output_tokens: 200, cache_read_input_tokens: 50, cache_creation_input_tokens: 5 }),
      turn({ input_tokens: 10 }, { cost_usd: 4.1 }),
      { role: 'human' as const, details: { usage: { input_tokens: 1e9 } } as any },
    ],
    undefined,
  );
  t.same(s, { tokens: 1265, cost_usd: 4.1, unpriced: 1 });
  t.match(taskBudgetReached(s, { cost_usd: 4 }), {
    budget: 'task_cost_usd',
    reason: 'budget reached: $4.10 of $4.00 (at least: 1 turn unpriced)',
    unpriced: 1,
  });
  t.equal(taskBudgetReached(s, { cost_usd: 5 }), null, 'unknown costs cannot prove it reached');
  t.equal(taskBudgetReached(s, {}), null, 'no limit set: no limit');
  t.equal(tokensText(1_200_000), '1.2M');
  t.equal(tokensText(1_000_000), '1M');
  t.end();
});

t.test(
  'rounds and asks past a budget: refused, moving nothing; a follow-up --command runs no agent and is let be',
  async (t) => {
    const box = await agentSandbox({ adapter: 'claude', settings: { 'budget.task_tokens': '3000' } });
    t.teardown(box.sb.cleanup);
    const { l } = box;
    const blocked = await l.create('under review', '--accept', 'done');
    t.equal((await l('start', blocked)).code, 0);
    t.equal((await l.json('wait', blocked, '--timeout', '60')).value.task.status, 'blocked');
    const before = (await l.json('show', blocked)).value;

    for (const args of [
      ['repair', blocked, '-m', 'fix the setup'],
      ['ask', blocked, '-m', 'why?'],
    ]) {
      const r = await l.json(...args);
      t.equal(r.run.code, 4, `${args[0]} past the budget is refused`);
      t.match(r.value.error, { details: { guard: 'budget', action: args[0] } });
    }
    const after = (await l.json('show', blocked)).value;
    t.same(after.attention, before.attention, 'the review still waits: the attention is untouched');
    t.equal(after.changelog.length, before.changelog.length, 'nothing was written');

    // The accept lands it; a follow-up's agent round is refused on the complete task, which stays complete.
    t.equal((await l('accept', blocked, '--yes')).code, 0);
    const agentRound = await l.json('follow-up', blocked, '-m', 'one more thing');
    t.equal(agentRound.run.code, 4);
    t.match(agentRound.value.error, {
      message: /raise budget\.task_tokens \(lazy config set budget\.task_tokens/,
      details: { action: 'follow_up', status: 'complete' },
    });
    t.notMatch(agentRound.value.error.message, /lazy unblock/, 'no way on that a complete task refuses');
    t.equal((await l.json('show', blocked)).value.status, 'complete');

    const cmd = await l.json('follow-up', blocked, '--command', 'echo checked');
    t.equal(cmd.run.code, 0, `a shell command spends no tokens: ${cmd.run.stdout}`);
    const turn = cmd.value.task.turns.at(-1);
    t.equal(turn.details.cost_usd, 0, 'and costs nothing, known');
    const usage = (await l.json('usage', '--by', 'agent')).value;
    t.equal(usage.groups.find((g: any) => g.key === 'shell')?.unpriced_turns, 0, 'lazy usage counts it priced');
    t.equal(box.invocations().length, 1, 'no agent beyond the first turn was launched');
  },
);
