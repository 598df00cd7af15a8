import t from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { agentSandbox, eventually, runDirOf } from '../helpers/agent.js';

t.jobs = 4;

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
  await l('list');
  await new Promise((r) => setTimeout(r, 500));
  await l('list');
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
