import t from 'tap';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { agentSandbox, eventually, FAKE_AGENT_SH, supervisorGone } from '../helpers/agent.js';

t.jobs = 4;

// Issue 9, "Feedback and comments": feedback given while the agent works is queued and
// starts the next turn.

t.test('unblock on a working task queues the feedback; the end of the turn starts the next turn with it', async (t) => {
  const { sb, l, invocations, scenario, gate } = await agentSandbox();
  t.teardown(sb.cleanup);
  const open = gate(); // the turn runs until the feedback is queued
  scenario('slow-succeed,succeed');
  const id = await l.create('write the parser', '--accept', 'it works');
  t.equal((await l('start', id)).code, 0);
  const feedback = 'Also handle empty input.\n  Keep the API unchanged.';
  const q = await l.json('unblock', id, '-m', feedback);
  open();
  t.equal(q.run.code, 0, `unblock on a working task exits 0: ${q.run.stderr}`);
  t.equal(q.value.run, null, 'no turn was launched by the unblock itself');
  t.ok(q.value.queued?.turn, 'the queued feedback turn is reported');
  t.equal(q.value.task.status, 'working', 'the task keeps working');
  const pending = q.value.task.turns.find((x: any) => x.id === q.value.queued.turn);
  t.equal(pending.feedback, 'pending', 'the feedback is recorded as pending');
  t.equal(pending.content, feedback);
  t.ok(q.value.task.available_actions.includes('unblock'), 'working lists unblock');

  const waited = await l.json('wait', id, '--timeout', '30');
  t.equal(invocations().length, 2, 'wait covers the turn the queued feedback starts');
  t.equal(waited.value.task.status, 'blocked');
  const second = invocations()[1]!;
  t.ok(second.prompt.includes(feedback), 'the next turn gets the feedback verbatim');
  t.match(second.prompt, /While your last turn was running, the human sent this feedback/);
  t.notOk(invocations()[0]!.prompt.includes('handle empty input'), 'the running turn never saw it');
  const v = (await l.json('show', id)).value;
  t.equal(v.turns.find((x: any) => x.id === q.value.queued.turn).feedback, 'consumed', 'the second turn consumed it');
  const auto = v.changelog.filter((c: any) => c.trigger === 'unblock');
  t.equal(auto.length, 1, 'one move into working for the queued feedback');
  t.equal(auto[0].actor, 'system');
  t.equal(v.changelog.filter((c: any) => c.status === 'working').length, 2);
  t.equal(invocations().length, 2, 'exactly one extra turn');
});

t.test('text output of a queued unblock, and a stop leaves queued feedback pending for resume', async (t) => {
  const { sb, l, invocations, scenario } = await agentSandbox();
  t.teardown(sb.cleanup);
  scenario('hang,succeed');
  const id = await l.create('a long task', '--accept', 'it works');
  const run = (await l.json('start', id)).value.run.id;
  await eventually(() => invocations().length >= 1, 20_000, 'the agent to start');
  const r = await l('unblock', id, '-m', 'please stop using globals');
  t.equal(r.code, 0, r.stderr);
  t.match(r.stdout, /feedback queued .*starts its next turn when this one ends/);
  const refused = await l('unblock', id, '-m', 'x', '--approve-all');
  t.equal(refused.code, 4, 'protected-file decisions wait for the turn to end');
  t.match(refused.stderr, /nothing was queued/);

  const stopped = await l('stop', id);
  t.equal(stopped.code, 0);
  t.match(
    stopped.stdout,
    /2 feedback messages not acted on yet \(queued or interrupted\) stay pending: lazy resume delivers them/,
    'stop says the feedback waits',
  );
  // Once the stopped turn's supervisor has returned, nothing can start the queued feedback by itself.
  await supervisorGone(sb, run);
  t.equal(invocations().length, 1, 'a stop does not start the queued feedback: the user asked to stop');
  let v = (await l.json('show', id)).value;
  t.equal(v.status, 'interrupted');
  t.equal(
    v.turns.filter((x: any) => x.feedback === 'pending' && x.content === 'please stop using globals').length,
    1,
    'it stays pending',
  );

  t.equal((await l('resume', id)).code, 0);
  await l('wait', id, '--timeout', '30');
  t.ok(invocations()[1]!.prompt.includes('please stop using globals'), 'resume delivers it verbatim');
  v = (await l.json('show', id)).value;
  t.equal(v.pending_feedback.length, 0);
});

t.test(
  'feedback queued during a turn that parks in conflict waits for the decisions, then reaches the agent verbatim',
  async (t) => {
    const { sb, l, invocations, scenario, gate } = await agentSandbox({ settings: { protected: 'config/**' } });
    t.teardown(sb.cleanup);
    const open = gate();
    scenario('slow-protected,succeed');
    const id = await l.create('touches secrets', '--accept', 'ok');
    const run = (await l.json('start', id)).value.run.id;
    t.equal((await l('unblock', id, '-m', 'queued while it touched secrets')).code, 0);
    open();
    const w = await l.json('wait', id, '--timeout', '30');
    t.equal(w.value.task.status, 'conflict', 'the turn parked in conflict');
    await supervisorGone(sb, run); // once it returned, nothing can start a turn by itself
    t.equal(invocations().length, 1, 'no turn starts without the protected-file decisions');
    t.ok(w.value.task.pending_feedback.length >= 1, 'the queued feedback stays pending');
    t.equal((await l('unblock', id, '-m', 'reverted the secrets; go on', '--revert-all')).code, 0);
    await l('wait', id, '--timeout', '30');
    const p = invocations()[1]!.prompt;
    t.ok(
      p.includes('reverted the secrets; go on') && p.includes('queued while it touched secrets'),
      'the unblock with decisions delivers both verbatim',
    );
  },
);

t.test(
  'queued feedback survives a crash (auto-resume delivers it) and a failed auto-start (the next unblock delivers it)',
  async (t) => {
    const { sb, l, invocations, scenario, gate } = await agentSandbox();
    t.teardown(sb.cleanup);
    const open = gate();
    scenario('crash,succeed');
    const id = await l.create('crashy', '--accept', 'it works');
    await l('start', id);
    t.equal((await l('unblock', id, '-m', 'queued before the crash')).code, 0);
    open();
    await eventually(
      async () => (await l.json('show', id)).value.changelog.some((c: any) => c.trigger === 'auto_resume'),
      30_000,
      'the auto-resume',
    );
    await l('wait', id, '--timeout', '30');
    t.ok(
      invocations()[1]!.prompt.includes('queued before the crash'),
      'the resumed turn delivers the queued feedback verbatim',
    );
    t.equal((await l.json('show', id)).value.pending_feedback.length, 0);

    // A queued start that cannot launch (the agent's program is gone) keeps the feedback.
    const wrapper = join(sb.home, 'agent.sh');
    writeFileSync(wrapper, `#!/bin/sh\nexec /bin/sh "${FAKE_AGENT_SH}" "$@"\n`, { mode: 0o755 });
    t.equal((await l('config', 'set', 'agents.fake.command', wrapper)).code, 0);
    const id2 = await l.create('the agent goes away', '--accept', 'it works');
    scenario('slow-succeed');
    const open2 = gate();
    const launched = invocations().length;
    await l('start', id2);
    t.equal((await l('unblock', id2, '-m', 'queued, then the agent goes away')).code, 0);
    await eventually(() => invocations().length > launched, 30_000, 'the agent to start through the wrapper');
    rmSync(wrapper);
    open2();
    await eventually(
      async () =>
        (await l.json('show', id2)).value.turns.some(
          (x: any) => x.role === 'system' && /could not start the next turn/.test(x.content),
        ),
      30_000,
      'the failed queued start to be recorded',
    );
    let v = (await l.json('show', id2)).value;
    t.equal(v.status, 'blocked');
    t.equal(
      v.turns.filter((x: any) => x.feedback === 'pending' && x.content === 'queued, then the agent goes away').length,
      1,
      'the feedback stays pending',
    );
    t.match(v.turns.at(-1).content, /not installed or not on PATH/, 'the reason is on the task');
    writeFileSync(wrapper, `#!/bin/sh\nexec /bin/sh "${FAKE_AGENT_SH}" "$@"\n`, { mode: 0o755 });
    scenario('succeed');
    const n = invocations().length;
    t.equal((await l('unblock', id2, '-m', 'newest feedback')).code, 0);
    await l('wait', id2, '--timeout', '30');
    const p = invocations()[n]!.prompt;
    t.ok(
      p.includes('newest feedback') && p.includes('queued, then the agent goes away'),
      'the next unblock delivers both verbatim',
    );
    v = (await l.json('show', id2)).value;
    t.equal(v.pending_feedback.length, 0);
  },
);
