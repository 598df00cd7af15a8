import t from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { agentSandbox, runDirOf } from '../helpers/agent.js';

t.jobs = 4;

// The supervisor: a failed attempt is classified, retried inside the turn, or ends it.

const triggers = (v: any) => v.changelog.filter((c: any) => !c.set_aside).map((c: any) => c.trigger);

t.test('fatal_auth blocks the task with the classified reason and is never resumed', async (t) => {
  const { sb, l, invocations, scenario } = await agentSandbox();
  t.teardown(sb.cleanup);
  scenario('auth');
  const id = await l.create('no login', '--accept', 'done');
  await l('start', id);
  const w = await l.json('wait', id, '--timeout', '30');
  t.equal(w.run.code, 0, 'blocked is the blocked family');
  t.equal(w.value.task.attention.kind, 'failure');
  t.match(w.value.task.attention.reason, /fatal_auth: Not logged in/);
  const failed = w.value.task.changelog.at(-1);
  t.equal(failed.trigger, 'turn_failed');
  t.equal(failed.details.failure_class, 'fatal_auth');
  t.equal(w.value.task.turns.at(-1).details.failure_class, 'fatal_auth');
  t.equal(w.value.task.turns[0].feedback, 'pending', 'a failed turn consumes no feedback');
  await l('list');
  t.equal(invocations().length, 1, 'not retried, not resumed');
});

t.test('a rate limit is retried inside the turn and then succeeds', async (t) => {
  const { sb, l, invocations, scenario } = await agentSandbox();
  t.teardown(sb.cleanup);
  scenario('rate-limit,rate-limit,succeed');
  const id = await l.create('busy api', '--accept', 'done');
  const s = await l.json('start', id);
  const w = await l.json('wait', id, '--timeout', '30');
  t.equal(w.value.task.status, 'blocked');
  t.equal(w.value.task.attention.kind, 'review');
  t.same(triggers(w.value.task), ['create', 'start', 'turn_complete'], 'retries stay inside one turn');
  t.equal(invocations().length, 3);
  const log = readFileSync(join(runDirOf(sb, s.value.run.id), 'output.log'), 'utf8');
  t.match(log, /attempt 1 failed \(transient_overload\).*retrying in 0\.1 s/);
  t.match(log, /attempt 2 failed \(transient_overload\).*retrying in 0\.2 s/, 'pacing doubles');
  t.equal(w.value.task.turns.at(-1).details.attempts, 3);
});

t.test('three fast unknown failures are a crash loop: interrupted, then auto-resumed', async (t) => {
  // A window no attempt outlasts on a loaded machine: each is one node start that exits at once.
  const { sb, l, invocations, scenario } = await agentSandbox({ settings: { crash_window_ms: '60000' } });
  t.teardown(sb.cleanup);
  scenario('unknown,unknown,unknown,succeed');
  const id = await l.create('flaky', '--accept', 'done');
  await l('start', id);
  const w = await l.json('wait', id, '--timeout', '120');
  t.equal(w.run.code, 0);
  const crash = w.value.task.changelog.find((c: any) => c.trigger === 'turn_crashed');
  t.match(crash.reason, /crash loop: 3 failures in a row, each under 60 s/);
  t.equal(invocations().length, 4);
});

t.test('a malformed result envelope is never a completed turn', async (t) => {
  const { sb, l, scenario } = await agentSandbox();
  t.teardown(sb.cleanup);
  scenario('malformed,succeed');
  const id = await l.create('drift', '--accept', 'done');
  await l('start', id);
  const w = await l.json('wait', id, '--timeout', '40');
  t.same(triggers(w.value.task), ['create', 'start', 'turn_crashed', 'auto_resume', 'turn_complete']);
  t.match(w.value.task.changelog[2].reason, /broke its result contract: envelope fails its schema/);
});

t.test('an agent question blocks the task as a decision; answer sends the next turn', async (t) => {
  const { sb, l, invocations, scenario } = await agentSandbox();
  t.teardown(sb.cleanup);
  scenario('question,succeed');
  const id = await l.create('choose', '--accept', 'done');
  await l('start', id);
  const w = await l.json('wait', id, '--timeout', '30');
  t.equal(w.value.task.attention.kind, 'decision');
  t.equal(w.value.task.attention.reason, 'Should I use approach A or approach B?');
  t.equal(w.value.task.turns.at(-1).kind, 'question');
  const a = await l.json('answer', id, '-m', 'Approach B, please.');
  t.equal(a.run.code, 0);
  t.equal((await l.json('wait', id, '--timeout', '30')).value.task.attention.kind, 'review');
  t.match(invocations()[1]!.prompt, /The human answered your question:\n\nApproach B, please\./);
  const none = await l.json('answer', id, '-m', 'again?');
  t.equal(none.run.code, 4, 'answer without a pending decision is refused');
});

for (const adapter of ['command', 'claude'] as const) {
  t.test(`${adapter}: a failure whose output only looks like auth is retried, not blocked`, async (t) => {
    const { sb, l, invocations, scenario } = await agentSandbox({ adapter });
    t.teardown(sb.cleanup);
    scenario('noisy-fail,succeed');
    const id = await l.create('invoice tests', '--accept', 'done');
    await l('start', id);
    const w = await l.json('wait', id, '--timeout', '60');
    t.equal(w.value.task.attention?.kind, 'review', JSON.stringify(w.value.task.attention));
    t.equal(invocations().length, 2, 'retried once, then succeeded');
    t.notOk(
      w.value.task.changelog.some((c: any) => c.trigger === 'turn_failed'),
      'never blocked as a failure',
    );
  });
}
