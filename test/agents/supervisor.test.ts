import t from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { agentSandbox, eventually, runDirOf } from '../helpers/agent.js';

const triggers = (v: any) => v.changelog.filter((c: any) => !c.set_aside).map((c: any) => c.trigger);

t.test('fatal_auth blocks the task with the classified reason and is never resumed', async (t) => {
  const { sb, l, invocations, scenario } = await agentSandbox();
  t.teardown(sb.cleanup);
  scenario('auth');
  const id = await l.create('no login', '--accept', 'done');
  await l('start', id);
  const w = await l.json('wait', id, '--timeout', '30');
  t.equal(w.run.code, 0, 'blocked is the blocked family');
  t.equal(w.value.attention.kind, 'failure');
  t.match(w.value.attention.reason, /fatal_auth: Not logged in/);
  const failed = w.value.changelog.at(-1);
  t.equal(failed.trigger, 'turn_failed');
  t.equal(failed.details.failure_class, 'fatal_auth');
  t.equal(w.value.turns.at(-1).details.failure_class, 'fatal_auth');
  t.equal(w.value.turns[0].feedback, 'pending', 'a failed turn consumes no feedback');
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
  t.equal(w.value.status, 'blocked');
  t.equal(w.value.attention.kind, 'review');
  t.same(triggers(w.value), ['create', 'start', 'turn_complete'], 'retries stay inside one turn');
  t.equal(invocations().length, 3);
  const log = readFileSync(join(runDirOf(sb, s.value.run.id), 'output.log'), 'utf8');
  t.match(log, /attempt 1 failed \(transient_overload\).*retrying in 0\.1 s/);
  t.match(log, /attempt 2 failed \(transient_overload\).*retrying in 0\.2 s/, 'pacing doubles');
  t.equal(w.value.turns.at(-1).details.attempts, 3);
});

t.test('three fast unknown failures are a crash loop: interrupted, then auto-resumed', async (t) => {
  const { sb, l, invocations, scenario } = await agentSandbox();
  t.teardown(sb.cleanup);
  scenario('unknown,unknown,unknown,succeed');
  const id = await l.create('flaky', '--accept', 'done');
  await l('start', id);
  const w = await l.json('wait', id, '--timeout', '40');
  t.equal(w.run.code, 0);
  const crash = w.value.changelog.find((c: any) => c.trigger === 'turn_crashed');
  t.match(crash.reason, /crash loop: 3 failures in a row, each under 10 s/);
  t.equal(invocations().length, 4);
});

t.test('a malformed result envelope is never a completed turn', async (t) => {
  const { sb, l, scenario } = await agentSandbox();
  t.teardown(sb.cleanup);
  scenario('malformed,succeed');
  const id = await l.create('drift', '--accept', 'done');
  await l('start', id);
  const w = await l.json('wait', id, '--timeout', '40');
  t.same(triggers(w.value), ['create', 'start', 'turn_crashed', 'auto_resume', 'turn_complete']);
  t.match(w.value.changelog[2].reason, /broke its result contract: envelope fails its schema/);
});

t.test('an agent question blocks the task as a decision; answer sends the next turn', async (t) => {
  const { sb, l, invocations, scenario } = await agentSandbox();
  t.teardown(sb.cleanup);
  scenario('question,succeed');
  const id = await l.create('choose', '--accept', 'done');
  await l('start', id);
  const w = await l.json('wait', id, '--timeout', '30');
  t.equal(w.value.attention.kind, 'decision');
  t.equal(w.value.attention.reason, 'Should I use approach A or approach B?');
  t.equal(w.value.turns.at(-1).kind, 'question');
  const a = await l.json('answer', id, '-m', 'Approach B, please.');
  t.equal(a.run.code, 0);
  t.equal((await l.json('wait', id, '--timeout', '30')).value.attention.kind, 'review');
  t.match(invocations()[1]!.prompt, /The human answered your question:\n\nApproach B, please\./);
  const none = await l.json('answer', id, '-m', 'again?');
  t.equal(none.run.code, 4, 'answer without a pending decision is refused');
});

t.test('stop: SIGTERM, then SIGKILL after the grace period; never auto-resumed', async (t) => {
  const { sb, l, invocations, scenario } = await agentSandbox();
  t.teardown(sb.cleanup);
  scenario('ignore-sigterm,succeed');
  const id = await l.create('stubborn', '--accept', 'done');
  await l('start', id);
  // Stop only once the agent says its SIGTERM handler is in place (a fixed pause was a race under load).
  await eventually(
    async () => {
      const run = (await l.json('show', id)).value.current_run;
      try {
        return (
          run && readFileSync(join(runDirOf(sb, run), 'output.log'), 'utf8').includes('running and ignoring SIGTERM')
        );
      } catch {
        return false;
      }
    },
    30000,
    'the agent ignoring SIGTERM',
  );
  const s = await l.json('stop', id);
  t.equal(s.run.code, 0);
  t.equal(s.value.signal, 'SIGKILL', 'an agent that ignores SIGTERM is killed');
  t.ok(s.value.waited_ms >= 900, `after the grace period (${s.value.waited_ms} ms)`);
  t.equal(s.value.task.status, 'interrupted');
  const agentPid = invocations()[0]!.pid;
  t.throws(() => process.kill(agentPid, 0), 'the agent is gone');
  await l('list');
  await new Promise((r) => setTimeout(r, 500));
  await l('list');
  const v = (await l.json('show', id)).value;
  t.equal(v.status, 'interrupted', 'a user stop is not auto-resumed');
  t.equal(v.attention.reason, 'stopped by the user');
  t.equal(invocations().length, 1);
  t.equal((await l('resume', id)).code, 0);
  t.equal((await l.json('wait', id, '--timeout', '30')).value.status, 'blocked');
});

t.test('stop on a well-behaved agent needs only SIGTERM', async (t) => {
  const { sb, l, invocations, scenario } = await agentSandbox();
  t.teardown(sb.cleanup);
  scenario('hang');
  const id = await l.create('calm', '--accept', 'done');
  await l('start', id);
  await eventually(() => invocations()[0], 20000, 'the agent');
  const watched = (await l.json('watch')).value;
  t.same(
    watched.map((r: any) => [r.id, r.status, r.agent, r.supervisor]),
    [[id, 'working', 'fake', 'alive']],
    'watch shows the running turn',
  );
  const s = await l.json('stop', id);
  t.equal(s.value.signal, 'SIGTERM', JSON.stringify({ signal: s.value.signal, w: s.value.waited_ms }));
  const refused = await l.json('stop', id);
  t.equal(refused.run.code, 4, 'stop on an interrupted task is refused');
});
