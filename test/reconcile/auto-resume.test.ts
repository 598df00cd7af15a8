import t from 'tap';
import { rmSync, writeFileSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import { agentSandbox, eventually, FAKE_AGENT_SH, activeMarkers, crashSettled } from '../helpers/agent.js';
import { gitSync } from '../helpers/env.js';

t.jobs = 4;

// Crash recovery (issue 9): a crash nothing can resume is never silent, a merge-and-fix
// crash waits for a human, and a resumed prompt says truthfully why it is resumed.

const triggers = (v: any) =>
  v.changelog.filter((c: any) => !c.set_aside).map((c: any) => `${c.from ?? '∅'}>${c.status}:${c.trigger}`);

/** A sandbox whose agent program is a script the test can delete (the program "is gone"). */
async function removableAgent() {
  const box = await agentSandbox();
  const program = join(box.sb.home, 'agent.sh');
  writeFileSync(program, `#!/bin/sh\nexec /bin/sh "${FAKE_AGENT_SH}" "$@"\n`);
  chmodSync(program, 0o755);
  const r = await box.l('config', 'set', 'agents.fake.command', program);
  if (r.code !== 0) throw new Error(r.stderr);
  return { ...box, program };
}

t.test(
  'a crash whose auto-resume cannot launch (the agent program is gone) blocks as fatal_config, shows in inbox, and wait returns',
  async (t) => {
    const { sb, l, invocations, scenario, program } = await removableAgent();
    t.teardown(sb.cleanup);
    scenario('crash');
    const id = await l.create('crash then lose the agent', '--accept', 'done');
    const s = await l.json('start', id);
    t.equal(s.run.code, 0);
    await eventually(() => invocations()[0], 20_000, 'the agent to start');
    rmSync(program); // the agent is running already; its program is now gone
    await crashSettled(sb, s.value.run.id);

    const list = await l('list');
    t.equal(list.code, 0);
    t.match(
      list.stderr,
      /auto-resume could not start the agent: .*not installed/,
      'the command that found it says so once',
    );
    const v = (await l.json('show', id)).value;
    t.equal(v.status, 'blocked', 'blocked, not interrupted forever');
    t.same(triggers(v).slice(-2), ['working>interrupted:turn_crashed', 'interrupted>blocked:turn_failed']);
    t.equal(v.changelog.at(-1).details.failure_class, 'fatal_config');
    t.equal(v.changelog.at(-1).actor, 'system');
    t.equal(v.attention.kind, 'failure');
    t.match(v.attention.reason, /agent\.sh' is not installed/, 'the reason names the missing program');
    t.same(activeMarkers(sb.dir), [], 'no marker is left for every command to warn about');

    const again = await l('list');
    t.equal(again.stderr, '', 'later commands no longer warn');
    const inbox = await l.json('inbox');
    const row = inbox.value.find((x: any) => x.id === id);
    t.equal(row?.attention.kind, 'failure', 'in inbox --json');
    t.match(row?.attention.reason, /not installed/);
    t.match((await l('inbox')).stdout, new RegExp(`${id}\\s+failure`), 'in the text inbox');
    const w = await l.json('wait', id, '--timeout', '5');
    t.equal(w.run.code, 0, 'wait returns at once (blocked is the blocked family)');
    t.equal(w.value.task.attention.kind, 'failure');
    const doc = await l.json('doctor');
    t.equal(doc.value.findings.filter((f: any) => f.details?.task === id).length, 0, 'nothing is left for doctor');
    t.equal(invocations().length, 1, 'no agent was launched');

    // Fix the cause and continue, as the inbox says.
    writeFileSync(program, `#!/bin/sh\nexec /bin/sh "${FAKE_AGENT_SH}" "$@"\n`);
    chmodSync(program, 0o755);
    scenario('succeed');
    t.equal((await l('unblock', id, '-m', 'the agent is back')).code, 0);
    t.equal((await l.json('wait', id, '--timeout', '40')).run.code, 0);
  },
);

t.test(
  'a crash whose branch was deleted meanwhile blocks with the restore advice instead of staying interrupted',
  async (t) => {
    const { sb, l, invocations, scenario } = await agentSandbox();
    t.teardown(sb.cleanup);
    scenario('crash');
    const id = await l.create('branch deleted after a crash', '--accept', 'done');
    const s = await l.json('start', id);
    await eventually(() => invocations()[0], 20_000, 'the agent to start');
    await crashSettled(sb, s.value.run.id);
    gitSync(sb.dir, sb.env, ['worktree', 'remove', '--force', join(sb.dir, '.lazy', 'worktrees', id)]);
    gitSync(sb.dir, sb.env, ['branch', '-D', `lazy/${id}`]);
    const list = await l('list');
    t.match(
      list.stderr,
      /auto-resume could not start the agent: branch lazy\/\S+ of task \S+ was deleted outside lazy/,
    );
    const v = (await l.json('show', id)).value;
    t.equal(v.status, 'blocked');
    t.equal(v.attention.kind, 'failure');
    t.match(v.attention.reason, /restore it with/);
    t.equal(invocations().length, 1);
    t.same(activeMarkers(sb.dir), []);
  },
);

t.test('a manual resume whose agent program is gone fails clearly and leaves the task where it was', async (t) => {
  const { sb, l, invocations, scenario, program } = await removableAgent();
  t.teardown(sb.cleanup);
  scenario('hang');
  const id = await l.create('stopped, then the agent is gone', '--accept', 'done');
  await l('start', id);
  await eventually(() => invocations()[0], 20_000, 'the agent to start');
  t.equal((await l('stop', id)).code, 0);
  rmSync(program);
  const r = await l.json('resume', id);
  t.equal(r.run.code, 7, 'an external failure');
  t.equal(r.value.error.code, 'agent_missing');
  const v = (await l.json('show', id)).value;
  t.equal(v.status, 'interrupted', 'nothing changed');
  t.equal(v.attention.kind, 'interrupted', 'still waiting for the human');
  t.ok(
    (await l.json('inbox')).value.some((x: any) => x.id === id),
    'still in the inbox',
  );
  t.equal(
    (await l.json('wait', id, '--timeout', '5')).run.code,
    4,
    'wait returns at once rather than timing out (exit 5)',
  );
  // The stopped run's supervisor clears its marker on its way out, which may come after the checks above.
  await eventually(() => activeMarkers(sb.dir).length === 0, 20_000, 'no marker: the failed resume left none');
  t.same(activeMarkers(sb.dir), []);
  t.equal((await l('start', id)).code, 4, 'start is refused by the table, not half-done');
});

t.test('a crash during merge-and-fix is not auto-resumed; it waits in the inbox and resume still works', async (t) => {
  const { sb, l, invocations, scenario } = await agentSandbox();
  t.teardown(sb.cleanup);
  const id = await l.create('conflicts with main', '--accept', 'done');
  await l('start', id);
  t.equal((await l.json('wait', id, '--timeout', '40')).run.code, 0, 'first turn completes (it wrote work-1.txt)');
  writeFileSync(join(sb.dir, 'work-1.txt'), 'main says otherwise\n');
  gitSync(sb.dir, sb.env, ['add', 'work-1.txt']);
  gitSync(sb.dir, sb.env, ['commit', '-q', '-m', 'main: conflicting work-1.txt']);
  scenario('crash');
  t.equal((await l('unblock', id, '-m', 'more please')).code, 0);
  const w = await l.json('wait', id, '--timeout', '40');
  t.equal(w.run.code, 4, 'wait returns: the task ended interrupted and nothing will resume it');
  t.equal(w.value.error.details.status, 'interrupted');
  t.match(invocations()[1]!.prompt, /produced conflicts in: work-1\.txt/, 'the turn was a merge-and-fix turn');
  await l('list');
  const v = (await l.json('show', id)).value;
  t.equal(v.status, 'interrupted', 'still interrupted after more commands');
  t.equal(invocations().length, 2, 'no auto-resume was launched');
  t.same(triggers(v).slice(-1), ['working>interrupted:turn_crashed']);
  t.equal(v.attention.kind, 'interrupted');
  t.match(v.attention.reason, /conflicting upstream merge \(work-1\.txt\): not resumed automatically/);
  const row = (await l.json('inbox')).value.find((x: any) => x.id === id);
  t.match(row?.attention.reason, /not resumed automatically/, 'the inbox says why it was not resumed');
  t.same(activeMarkers(sb.dir), [], 'its marker is cleared');

  scenario('succeed-dirty');
  t.equal((await l('resume', id)).code, 0, 'a human resume still works');
  const done = await l.json('wait', id, '--timeout', '40');
  t.equal(done.run.code, 0);
  t.equal(done.value.task.status, 'blocked');
  t.equal(invocations().length, 3);
  t.match(
    invocations()[2]!.prompt,
    /Previous failure \(#\d+\):\n- class: unknown\n- reason: the agent was killed by SIGKILL/,
    'the manual resume says why too',
  );
});

t.test('a resumed prompt carries the previous failure: class and reason after a crash', async (t) => {
  const { sb, l, invocations, scenario } = await agentSandbox();
  t.teardown(sb.cleanup);
  scenario('crash,succeed');
  const id = await l.create('crash once', '--accept', 'done');
  await l('start', id);
  t.equal((await l.json('wait', id, '--timeout', '40')).run.code, 0);
  const resumed = invocations()[1]!.prompt;
  t.match(resumed, /^You are being resumed after a crash\./);
  t.match(
    resumed,
    /Previous failure \(#1\):\n- class: unknown\n- reason: the agent was killed by SIGKILL/,
    'class and reason of the crashed turn',
  );
  t.match(resumed, /signal SIGKILL/);
});

t.test('a crash loop inside one turn is resumed with its class and reason', async (t) => {
  // A window no attempt outlasts on a loaded machine: each is one node start that exits at once.
  const { sb, l, invocations, scenario } = await agentSandbox({ settings: { crash_window_ms: '60000' } });
  t.teardown(sb.cleanup);
  scenario('unknown,unknown,unknown,succeed');
  const id = await l.create('fail fast three times', '--accept', 'done');
  await l('start', id);
  t.equal((await l.json('wait', id, '--timeout', '120')).run.code, 0, 'auto-resumed to completion');
  const crashed = (await l.json('show', id)).value.turns.find((x: any) => x.role === 'agent' && x.kind === 'error');
  t.equal(crashed.details.failure_class, 'unknown', 'the interrupted turn records its class');
  const prompt = invocations()[3]!.prompt;
  t.match(
    prompt,
    /Previous failure \(#1\):\n- class: unknown\n- reason: crash loop: 3 failures in a row, each under 60 s: .*inexplicable/,
  );
  t.match(prompt, /exit code 3/);
});

t.test('a resume after lazy stop says the user stopped the turn, never that it crashed', async (t) => {
  const { sb, l, invocations, scenario } = await agentSandbox();
  t.teardown(sb.cleanup);
  scenario('hang,succeed');
  const id = await l.create('stop me', '--accept', 'done');
  await l('start', id);
  await eventually(() => invocations()[0], 20_000, 'the agent to start');
  t.equal((await l('stop', id)).code, 0);
  t.equal((await l('resume', id)).code, 0);
  t.equal((await l.json('wait', id, '--timeout', '40')).run.code, 0);
  const prompt = invocations()[1]!.prompt;
  t.match(
    prompt,
    /^You are being resumed after the user stopped your previous turn \(#1\) with lazy stop\. It did not crash or fail\./,
  );
  t.notMatch(prompt.replace('It did not crash or fail.', ''), /crash/i, 'no word of a crash');
  t.notMatch(prompt, /Previous failure/);
});
