import t from 'tap';
import { writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { agentSandbox, eventually } from '../helpers/agent.js';
import { gitSync } from '../helpers/env.js';

t.jobs = 4;

const triggers = (v: any) =>
  v.changelog.filter((c: any) => !c.set_aside).map((c: any) => `${c.from ?? '∅'}>${c.status}:${c.trigger}`);

t.test('an agent that crashes mid-turn is diagnosed and resumed with its feedback', async (t) => {
  const { sb, l, invocations, scenario } = await agentSandbox();
  t.teardown(sb.cleanup);
  scenario('crash,succeed');
  const id = await l.create('crashy', '--accept', 'done');
  await l('start', id);
  const w = await l.json('wait', id, '--timeout', '40');
  t.equal(w.run.code, 0, 'the next command auto-resumed it to completion');
  t.same(triggers(w.value.task), [
    '∅>backlog:create',
    'backlog>working:start',
    'working>interrupted:turn_crashed',
    'interrupted>working:auto_resume',
    'working>blocked:turn_complete',
  ]);
  const crash = w.value.task.changelog.find((c: any) => c.trigger === 'turn_crashed');
  t.match(crash.reason, /killed by SIGKILL/, 'the reason says what happened');
  t.equal(crash.details.signal, 'SIGKILL');
  t.ok(
    crash.details.logs.some((line: string) => /scenario crash/.test(line)),
    'the last lines of output are kept',
  );
  t.ok(crash.details.at);
  t.equal(crash.host.length > 0, true, 'the host is recorded');
  const [first, second] = invocations();
  t.match(
    second!.prompt,
    /^You are being resumed after a crash\. There are uncommitted changes/,
    'the dirty-worktree path prepends the dirty-work prompt',
  );
  t.ok(
    second!.prompt.includes(first!.prompt.split('\n---\n')[0]!.split('\n\n').slice(1).join('\n\n')),
    'the unconsumed task prompt is re-delivered verbatim',
  );
  t.equal(w.value.task.consecutive_interruptions, 0, 'a completed turn resets the counter');
  const synthetic = w.value.task.turns.find((x: any) => x.kind === 'resume');
  t.equal(synthetic.actor, 'system');
  t.equal(synthetic.content, '[system] Session interrupted and auto-resumed');
});

t.test('SIGKILL of the agent: the supervisor records the crash and the next command resumes', async (t) => {
  const { sb, l, invocations, scenario } = await agentSandbox();
  t.teardown(sb.cleanup);
  scenario('hang,succeed');
  const id = await l.create('agent dies', '--accept', 'done');
  await l('start', id);
  const inv = await eventually(() => invocations()[0], 20000, 'the agent');
  process.kill(inv.pid, 'SIGKILL');
  const w = await l.json('wait', id, '--timeout', '40');
  t.equal(w.run.code, 0);
  t.same(triggers(w.value.task).slice(2), [
    'working>interrupted:turn_crashed',
    'interrupted>working:auto_resume',
    'working>blocked:turn_complete',
  ]);
  t.match(w.value.task.changelog.find((c: any) => c.trigger === 'turn_crashed').reason, /killed by SIGKILL/);
});

t.test('after 3 crashes in a row the task stays interrupted until lazy resume', async (t) => {
  const { sb, l, invocations, scenario } = await agentSandbox();
  t.teardown(sb.cleanup);
  scenario('crash,crash,crash,succeed');
  const id = await l.create('crash loop', '--accept', 'done');
  await l('start', id);
  const w = await l.json('wait', id, '--timeout', '60');
  t.equal(w.run.code, 4, 'wait fails: the task ended interrupted');
  t.equal(w.value.error.details.status, 'interrupted');
  const v = (await l.json('show', id)).value;
  t.equal(v.consecutive_interruptions, 3);
  t.equal(v.attention.kind, 'interrupted');
  t.match(v.attention.reason, /circuit breaker/);
  t.match(v.interrupt.reason, /killed by SIGKILL/, 'show exposes the interrupt diagnostics');
  t.ok(v.interrupt.logs.length > 0 && v.interrupt.at);
  const text = (await l('show', id)).stdout;
  t.match(text, /Interrupted .*: the agent was killed by SIGKILL/);
  t.match(text, /crashes: +3 in a row/);
  t.equal(invocations().length, 3, 'two automatic resumes, then the breaker');
  await l('list');
  t.equal((await l.json('show', id)).value.status, 'interrupted', 'later commands do not resume it');
  t.equal(invocations().length, 3);
  const r = await l.json('resume', id);
  t.equal(r.run.code, 0);
  t.equal((await l.json('wait', id, '--timeout', '30')).value.task.status, 'blocked');
  t.equal((await l.json('show', id)).value.consecutive_interruptions, 0, 'lazy resume reset the counter');
});

t.test('feedback given with unblock survives a crash and is redelivered verbatim', async (t) => {
  const { sb, l, invocations, scenario } = await agentSandbox();
  t.teardown(sb.cleanup);
  const id = await l.create('redeliver', '--accept', 'done');
  await l('start', id);
  await l('wait', id, '--timeout', '30');
  scenario('succeed,crash,succeed');
  const feedback = 'Rename the helper to `parseUserInput` and keep\nthe old name as an alias.';
  await l('unblock', id, '-m', feedback);
  const w = await l.json('wait', id, '--timeout', '40');
  t.equal(w.run.code, 0);
  const inv = invocations();
  t.equal(inv.length, 3);
  t.ok(inv[1]!.prompt.includes(feedback), 'the crashed turn got the feedback');
  t.ok(inv[2]!.prompt.includes(feedback), 'the resumed turn got the same feedback verbatim');
  const fb = w.value.task.turns.find((x: any) => x.kind === 'feedback');
  t.equal(fb.feedback, 'consumed', 'consumed only once a turn completed normally');
});

t.test('a hanging agent is killed by the watchdog and resumed', async (t) => {
  const { sb, l, invocations, scenario } = await agentSandbox({ settings: { watchdog_ms: '10000' } });
  t.teardown(sb.cleanup);
  // 10 s: the resumed turn runs under the same watchdog, and a loaded machine starts it slowly.
  scenario('hang,succeed');
  const id = await l.create('hangs', '--accept', 'done');
  await l('start', id);
  const w = await l.json('wait', id, '--timeout', '40');
  t.equal(w.run.code, 0);
  t.match(w.value.task.changelog.find((c: any) => c.trigger === 'turn_crashed').reason, /watchdog/);
  t.equal(invocations().length, 2);
});

t.test('an outcome is recorded exactly once, whoever finds it', async (t) => {
  const { sb, l } = await agentSandbox();
  t.teardown(sb.cleanup);
  const id = await l.create('once', '--accept', 'done');
  const s = await l.json('start', id);
  await l('wait', id, '--timeout', '30');
  const before = gitSync(sb.dir, sb.env, ['rev-parse', `refs/lazy/tasks/${id}`]).trim();
  // Pretend the supervisor died after writing its outcome: the marker is back.
  const marker = join(sb.dir, '.git', 'lazy', 'active', `${id}.json`);
  writeFileSync(
    marker,
    JSON.stringify({
      task: id,
      run: s.value.run.id,
      kind: 'turn',
      since: new Date().toISOString(),
      owner: s.value.run.launcher,
    }),
  );
  t.equal((await l('list')).code, 0);
  t.equal(
    gitSync(sb.dir, sb.env, ['rev-parse', `refs/lazy/tasks/${id}`]).trim(),
    before,
    'reconcile found it already recorded',
  );
  t.equal((await l.json('show', id)).value.turns.filter((x: any) => x.role === 'agent').length, 1);
  t.notOk(existsSync(marker), 'and cleared the marker');
});
