import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { agentSandbox, eventually, readJson, runDirOf, type AgentBox } from '../helpers/agent.js';
import { alive, childPid, cleanupAfterSupervisors } from '../helpers/supervisors.js';
import { concurrent } from '../helpers/concurrent.js';

// What an agent leaves running neither keeps its turn open nor outlives it, and a planted
// run file cannot hang stop or reconcile (issue 8, items 8 and 9).

const test = concurrent(5);

test('a child the agent leaves running neither keeps the turn open nor outlives it', async (t) => {
  const box = await agentSandbox();
  const { sb, l, scenario } = box;
  cleanupAfterSupervisors(t, sb);
  scenario('leave-child');
  const id = await l.create('leave a child', '--accept', 'done');
  const s = await l.json('start', id);
  const pid = await childPid(t, box);
  const w = await l.json('wait', id, '--timeout', '30');
  t.equal(w.run.code, 0, 'the turn ended when the agent exited');
  t.equal(w.value.task.status, 'blocked');
  t.equal(w.value.task.attention.kind, 'review');
  await eventually(() => !alive(pid), 5000, 'the child to be gone');
  t.notOk(alive(pid), "the child was ended with the agent's process group");
  t.match(
    readFileSync(join(runDirOf(sb, s.value.run.id), 'output.log'), 'utf8'),
    /left processes running; they were ended with SIGTERM/,
  );
});

test('a child that escaped into its own session does not keep the turn open', async (t) => {
  const box = await agentSandbox();
  const { sb, l, scenario } = box;
  cleanupAfterSupervisors(t, sb);
  scenario('leave-daemon');
  const id = await l.create('leave a daemon', '--accept', 'done');
  await l('start', id);
  const pid = await childPid(t, box);
  const w = await l.json('wait', id, '--timeout', '30');
  t.equal(w.run.code, 0, 'the turn ended although the daemon still holds the output pipe');
  t.equal(w.value.task.status, 'blocked');
  process.kill(pid, 'SIGKILL');
  await eventually(() => !alive(pid), 5000, 'the daemon to be gone');
});

test('stop finds what the agent left running after it exited', async (t) => {
  // The supervisor ends the group one grace after the agent exits, and the stop must come within it: the
  // box's clock is paused, so no grace ends until the test moves it, once both SIGTERMs reached the child.
  const box = await agentSandbox();
  const { sb, l, scenario, invocations, clock } = box;
  cleanupAfterSupervisors(t, sb);
  scenario('leave-stubborn-child');
  const id = await l.create('stubborn child', '--accept', 'done');
  clock.pause();
  await l('start', id);
  const pid = await childPid(t, box);
  const agentPid = invocations()[0]!.pid;
  await eventually(() => !alive(agentPid), 10_000, 'the agent to exit');
  const sigterms = () => sigtermsOf(box);
  await eventually(() => sigterms() === 1, 10_000, "the supervisor's SIGTERM to the group it left");
  const stopping = l.json('stop', id);
  await eventually(() => sigterms() === 2, 10_000, "stop's SIGTERM");
  t.ok(alive(pid), 'the child ignored both');
  clock.advance(1000); // stop_grace_ms: both SIGKILLs are due (the supervisor's may land first)
  const s = await stopping;
  t.equal(s.run.code, 0);
  t.not(s.value.signal, 'none', `stop found the child (${s.value.signal} after ${s.value.waited_ms} ms)`);
  t.notOk(alive(pid), 'the child that ignored SIGTERM is gone when stop returns');
  clock.resume();
  const w = await l.json('wait', id, '--timeout', '30');
  t.equal(w.run.code, 4, 'wait ends outside the blocked family');
  t.equal(w.value.error.details.status, 'interrupted', JSON.stringify(w.value.task));
  const v = (await l.json('show', id)).value;
  t.equal(v.attention.reason, 'stopped by the user');
});

/** How many SIGTERMs the stubborn child of the box's first launch has ignored. */
const sigtermsOf = (box: AgentBox) => {
  try {
    return readFileSync(join(box.sb.home, 'fake-state', 'child-1.pid.sigterm'), 'utf8').length;
  } catch {
    return 0;
  }
};

test("reconcile kills the verified leftovers of a dead supervisor's agent", async (t) => {
  // The supervisor must be killed within the grace it gives the leftovers after the agent exits; the orphan kill
  // does not wait on this setting (a fixed 2 s), so a wide grace costs nothing on a loaded machine.
  // The test kills the supervisor: a process of its own.
  const box = await agentSandbox({ settings: { stop_grace_ms: '30000' }, detached: true });
  const { sb, l, scenario, invocations } = box;
  cleanupAfterSupervisors(t, sb);
  scenario('leave-stubborn-child,succeed');
  const id = await l.create('orphaned child', '--accept', 'done');
  const s = await l.json('start', id);
  const pid = await childPid(t, box);
  const agentPid = invocations()[0]!.pid;
  await eventually(() => !alive(agentPid), 10_000, 'the agent to exit');
  const rec = readJson(join(runDirOf(sb, s.value.run.id), 'run.json'));
  process.kill(rec.supervisor.pid, 'SIGKILL');
  await eventually(() => !alive(rec.supervisor.pid), 5000, 'the supervisor to die');
  t.ok(alive(pid), 'the child outlived its supervisor');
  const r = await l('list');
  t.equal(r.code, 0);
  await eventually(() => !alive(pid), 5000, 'the orphaned child to be gone');
  t.notOk(alive(pid), 'the orphan kill reached the child although its leader had exited');
  const w = await l.json('wait', id, '--timeout', '30');
  t.equal(w.value.task.status, 'blocked', 'the crashed turn was resumed and completed');
});

test('a FIFO planted over a run file never hangs stop or reconcile', async (t) => {
  const { sb, l, scenario, invocations } = await agentSandbox();
  cleanupAfterSupervisors(t, sb);
  scenario('hang');
  const id = await l.create('planted fifo', '--accept', 'done');
  const s = await l.json('start', id);
  await eventually(() => invocations()[0], 20_000, 'the agent');
  const dir = runDirOf(sb, s.value.run.id);
  const agentPid = invocations()[0]!.pid;
  rmSync(join(dir, 'outcome.json'), { force: true });
  execFileSync('mkfifo', [join(dir, 'outcome.json')]);
  const r = await l.json('list');
  t.equal(r.run.code, 0, 'reconcile read past the FIFO');
  const stop = await l.json('stop', id);
  t.equal(stop.run.code, 0);
  await eventually(() => !alive(agentPid), 10_000, 'the agent to be gone');
});
