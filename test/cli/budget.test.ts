import t from 'tap';
import { agentSandbox } from '../helpers/agent.js';
import { fakeEnv, mcpClient } from '../helpers/mcp.js';

// Budgets through the built binary and the MCP server: a task past budget.task_tokens is refused at unblock (exit 4,
// the JSON error naming the budget), show and inbox say `budget reached: …`, and unblock --budget (lazy_unblock's
// `budget`) lets that task go on. The fake agent's claude dialect reports 3,520 tokens a successful turn.

t.test('the CLI: exit 4 naming the budget, show and inbox say so, unblock --budget lets it go', async (t) => {
  const box = await agentSandbox({ adapter: 'claude', settings: { 'budget.task_tokens': '3000' } });
  t.teardown(box.sb.cleanup);
  const { l } = box;
  const id = await l.create('spend', '--accept', 'done');
  t.equal((await l('start', id)).code, 0);
  t.equal((await l.json('wait', id, '--timeout', '60')).value.task.status, 'blocked');

  const r = await l.spawn('unblock', id, '-m', 'go on', '--json');
  t.equal(r.code, 4, r.stderr);
  const { error } = JSON.parse(r.stdout);
  t.match(error, {
    code: 'action_not_allowed',
    message: /budget reached: 3\.5k of 3k tokens/,
    details: { guard: 'budget', budget: 'task_tokens', spent: 3520, limit: 3000, status: 'blocked' },
  });
  const text = await l.spawn('unblock', id, '-m', 'go on');
  t.equal(text.code, 4);
  t.match(text.stderr, /was not launched: budget reached: 3\.5k of 3k tokens; raise budget\.task_tokens/);
  t.match((await l.spawn('show', id)).stdout, /budget reached: 3\.5k of 3k tokens/, 'show');
  t.match(
    (await l.spawn('inbox')).stdout,
    new RegExp(`${id}\\s+failure\\s+\\S+\\s+budget reached: 3\\.5k of 3k tokens`),
  );

  const go = await l.spawn('unblock', id, '-m', 'go on', '--budget', '20000', '--json');
  t.equal(go.code, 0, go.stderr);
  t.same(JSON.parse(go.stdout).task.budget, { tokens: 20000 });
  t.equal((await l.json('wait', id, '--timeout', '60')).value.task.status, 'blocked');
  t.equal(box.invocations().length, 2, 'the raised task ran one more turn');
});

t.test('MCP: lazy_unblock is refused past the budget and takes budget to go on', async (t) => {
  const box = await agentSandbox({ adapter: 'claude', settings: { 'budget.task_tokens': '3000' } });
  const mcp = await mcpClient(box.sb, [], fakeEnv(box.sb, 'succeed'));
  t.teardown(async () => {
    await mcp.close();
    await box.sb.cleanup();
  });
  const { task } = await mcp.ok('lazy_create', { goal: 'spend', accept: ['done'] });
  await mcp.ok('lazy_start', { id: task.id });
  t.equal((await mcp.ok('lazy_wait', { id: task.id, timeout: 60 })).task.status, 'blocked');
  const refused = await mcp.call('lazy_unblock', { id: task.id, message: 'go on' });
  t.ok(refused.isError, 'refused');
  t.match(refused.content[0]!.text, /budget reached: 3\.5k of 3k tokens/);
  const go = await mcp.ok('lazy_unblock', { id: task.id, message: 'go on', budget: 20000, budget_usd: 1.5 });
  t.same(go.task.budget, { tokens: 20000, cost_usd: 1.5 });
  t.equal((await mcp.ok('lazy_wait', { id: task.id, timeout: 60 })).task.status, 'blocked');
});
