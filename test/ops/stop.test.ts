import t from 'tap';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { agentSandbox, eventually, runDirOf, supervisorGone, type AgentBox } from '../helpers/agent.js';
import { alive, cleanupAfterSupervisors } from '../helpers/supervisors.js';
import { runFiles } from '../../lib/agents/runs.js';

t.jobs = 4;

/** The run of a task whose agent says its SIGTERM handler is in place (a fixed pause was a race under load). */
const ignoringSigterm = (box: AgentBox, id: string): Promise<string> =>
  eventually(
    async () => {
      const run = (await box.l.json('show', id)).value.current_run;
      try {
        const log = readFileSync(join(runDirOf(box.sb, run), 'output.log'), 'utf8');
        return log.includes('running and ignoring SIGTERM') && run;
      } catch {
        return false;
      }
    },
    30000,
    'the agent ignoring SIGTERM',
  );

t.test('stop: SIGTERM, then SIGKILL after the grace period; never auto-resumed', async (t) => {
  const box = await agentSandbox();
  const { sb, l, invocations, scenario } = box;
  t.teardown(sb.cleanup);
  scenario('ignore-sigterm,succeed');
  const id = await l.create('stubborn', '--accept', 'done');
  const run = (await l.json('start', id)).value.run.id;
  await ignoringSigterm(box, id);
  const s = await l.json('stop', id);
  t.equal(s.run.code, 0);
  t.equal(s.value.signal, 'SIGKILL', 'an agent that ignores SIGTERM is killed');
  t.ok(s.value.waited_ms >= 900, `after the grace period (${s.value.waited_ms} ms)`);
  t.equal(s.value.task.status, 'interrupted');
  const agentPid = invocations()[0]!.pid;
  // Dead when stop returns; its parent (the supervisor) reaps it a moment later.
  const gone = () => {
    try {
      process.kill(agentPid, 0);
      return false;
    } catch {
      return true;
    }
  };
  t.ok(await eventually(gone, 5000, 'the agent reaped').catch(() => false), 'the agent is gone');
  await supervisorGone(sb, run);
  await l('list'); // a reconcile after the turn's end resumes what it should: not this
  const v = (await l.json('show', id)).value;
  t.equal(v.status, 'interrupted', 'a user stop is not auto-resumed');
  t.equal(v.attention.reason, 'stopped by the user');
  t.equal(invocations().length, 1);
  t.equal((await l('resume', id)).code, 0);
  t.equal((await l.json('wait', id, '--timeout', '30')).value.task.status, 'blocked');
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

t.test("a stop whose command died: the supervisor's SIGKILL ends the agent, but never before stop's own", async (t) => {
  const box = await agentSandbox(); // stop_grace_ms 1000
  const { sb, l, invocations, scenario } = box;
  cleanupAfterSupervisors(t, sb);
  scenario('ignore-sigterm');
  const id = await l.create('the stop died', '--accept', 'done');
  await l('start', id);
  const run = await ignoringSigterm(box, id);
  const agent = invocations()[0]!.pid;
  const asked = Date.now();
  writeFileSync(runFiles(runDirOf(sb, run)).stop, new Date().toISOString()); // what stop writes before it signals
  await eventually(() => !alive(agent), 60_000, 'the backstop SIGKILL');
  const ended = Date.now() - asked;
  // stop reports the signal it sent: had the supervisor's SIGKILL come first, a SIGTERM would look like it worked.
  t.ok(ended >= 1000 + 5000, `not before one grace and the backstop margin (${ended} ms)`);
  const v = await eventually(async () => {
    const x = (await l.json('show', id)).value;
    return x.status !== 'working' && x;
  });
  t.equal(v.status, 'interrupted', 'the stop request is honoured');
});
