import t from 'tap';
import { agentSandbox } from '../helpers/agent.js';

t.jobs = 4;

// The claude adapter end to end, with the fake agent speaking Claude Code's stream-json.

const flag = (argv: string[], name: string) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);

t.test('claude: launch argv, then --resume with the session id from the stream', async (t) => {
  const { sb, l, invocations } = await agentSandbox({ adapter: 'claude' });
  t.teardown(sb.cleanup);
  const id = await l.create('claude task', '--accept', 'done');
  await l('start', id);
  const w = await l.json('wait', id, '--timeout', '30');
  t.equal(w.value.task.status, 'blocked');
  const first = invocations()[0]!;
  t.ok(first.claude, 'spoke stream-json');
  t.equal(flag(first.argv, '--output-format'), 'stream-json');
  t.ok(first.argv.includes('--verbose'));
  t.equal(flag(first.argv, '--permission-mode'), 'acceptEdits');
  t.notOk(first.argv.includes('--resume'), 'the first turn starts a session');
  t.match(flag(first.argv, '-p'), /Task: claude task/);
  const agentTurn = w.value.task.turns.find((x: any) => x.role === 'agent');
  t.equal(agentTurn.details.agent_session_id, first.session, 'the session id is recorded');
  t.strictSame(agentTurn.details.usage, {
    input_tokens: 100,
    output_tokens: 20,
    cache_read_input_tokens: 3000,
    cache_creation_input_tokens: 400,
  });
  t.equal(w.value.task.agent_session_id, first.session);
  const shown = (await l.json('show', id)).value;
  t.strictSame(shown.usage, {
    input_tokens: 100,
    output_tokens: 20,
    cache_read_input_tokens: 3000,
    cache_creation_input_tokens: 400,
    cost_usd: 0.001,
  });

  await l('unblock', id, '-m', 'more please');
  await l('wait', id, '--timeout', '30');
  const second = invocations()[1]!;
  t.equal(flag(second.argv, '--resume'), first.session, 'later turns add --resume <session_id>');
});

t.test('decision and answer round trip in the same agent session', async (t) => {
  const { sb, l, invocations, scenario } = await agentSandbox({ adapter: 'claude' });
  t.teardown(sb.cleanup);
  scenario('question,succeed');
  const id = await l.create('ask me', '--accept', 'done');
  await l('start', id);
  const w = await l.json('wait', id, '--timeout', '30');
  t.equal(w.value.task.attention.kind, 'decision');
  await l('answer', id, '-m', 'Use approach B.');
  const done = await l.json('wait', id, '--timeout', '30');
  t.equal(done.value.task.attention.kind, 'review');
  const [q, a] = invocations();
  t.equal(flag(a!.argv, '--resume'), q!.session, 'the answer goes to the same session');
  t.match(flag(a!.argv, '-p'), /Use approach B\./);
});

t.test('ask is status-neutral: restored on success and on an agent error', async (t) => {
  const { sb, l, invocations, scenario } = await agentSandbox({ adapter: 'claude' });
  t.teardown(sb.cleanup);
  scenario('succeed,succeed,auth');
  const id = await l.create('explain', '--accept', 'done');
  await l('start', id);
  await l('wait', id, '--timeout', '30');
  const before = (await l.json('show', id)).value;
  const asked = await l.json('ask', id, '-m', 'Why did you choose this design?');
  t.equal(asked.run.code, 0);
  t.equal(asked.value.task.status, 'blocked', 'restored after success');
  t.equal(asked.value.answer.content, 'did turn 2');
  const askInv = invocations()[1]!;
  t.equal(flag(askInv.argv, '--permission-mode'), 'plan', 'ask runs read-only');
  t.equal(flag(askInv.argv, '--resume'), invocations()[0]!.session);
  const failed = await l.json('ask', id, '-m', 'And now?');
  t.equal(failed.value.task.status, 'blocked', 'restored after an agent error');
  const after = (await l.json('show', id)).value;
  t.same(
    after.changelog.filter((c: any) => c.status === 'working').map((c: any) => c.trigger),
    ['start', 'ask', 'ask'],
  );
  t.equal(after.attention.kind, 'review', 'the review is still what the task waits for');
  t.equal(after.status, before.status);
});
