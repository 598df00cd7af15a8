import t from 'tap';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { agentSandbox, eventually, activeMarkers, crashSettled } from '../helpers/agent.js';
import { gitSync } from '../helpers/env.js';

t.jobs = 4;

// Doctor and turn markers: a marker nothing can act on is reported and --fix clears it.

t.test('doctor reports a turn marker whose task is gone for good, and --fix clears it', async (t) => {
  const { sb, l, invocations, scenario } = await agentSandbox();
  t.teardown(sb.cleanup);
  scenario('crash');
  const id = await l.create('deleted on purpose', '--accept', 'done');
  const s = await l.json('start', id);
  await eventually(() => invocations()[0], 20_000, 'the agent to start');
  await crashSettled(sb, s.value.run.id);
  gitSync(sb.dir, sb.env, ['update-ref', '-d', `refs/lazy/tasks/${id}`]);
  gitSync(sb.dir, sb.env, ['gc', '-q', '--prune=now']);
  t.match((await l('list')).stderr, new RegExp(`task ${id}:`), 'every command warns about it');
  const d = await l.json('doctor');
  t.equal(d.run.code, 6, 'unhealthy');
  const f = d.value.findings.find((x: any) => x.code === 'dead_marker');
  t.equal(f?.details.task, id);
  t.match(f?.message, /does not exist here/);
  const fix = await l.json('doctor', '--fix');
  t.match(fix.value.fixed.join('\n'), new RegExp(`cleared the turn marker of task ${id}`));
  t.same(activeMarkers(sb.dir), []);
  t.equal((await l('list')).stderr, '', 'no more warnings');
  t.equal((await l('doctor')).code, 0, 'healthy');
});

t.test('doctor reports markers whose run record is gone or that are unreadable; --fix removes them', async (t) => {
  const { sb, l } = await agentSandbox();
  t.teardown(sb.cleanup);
  const id = await l.create('never started here', '--accept', 'done');
  const dir = join(sb.dir, '.git', 'lazy', 'active');
  mkdirSync(dir, { recursive: true });
  const owner = { host: 'old-box', boot_id: null, pid: 999_999, start_ticks: 1 };
  writeFileSync(
    join(dir, `${id}.json`),
    JSON.stringify({ task: id, run: 'abcdefgh', kind: 'turn', since: new Date().toISOString(), owner }),
  );
  writeFileSync(join(dir, 'zzzzzzzz.json'), '{ half a marker');
  const d = await l.json('doctor');
  t.equal(d.run.code, 6);
  const found = d.value.findings
    .filter((f: any) => f.code === 'dead_marker')
    .map((f: any) => f.message)
    .join('\n');
  t.match(found, /record of its run abcdefgh is gone/);
  t.match(found, /zzzzzzzz\.json cannot be read/);
  t.equal((await l('doctor', '--fix')).code, 0);
  t.same(activeMarkers(sb.dir), []);
  t.equal((await l.json('show', id)).value.status, 'backlog', 'the task itself is untouched');
  t.equal((await l('doctor')).code, 0);
});
