import t from 'tap';
import { cpSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { agentSandbox, eventually, runDirOf } from '../helpers/agent.js';
import { selfIdentity } from '../../lib/core/proc.js';

// Launching a turn: of two racing starts one wins, and only it writes the run marker.

t.test('two starts racing: one wins, and its turn stays findable by reconcile', async (t) => {
  const box = await agentSandbox();
  const { sb, l, scenario, invocations } = box;
  t.teardown(sb.cleanup);
  scenario('hang');
  const id = await l.create('race', '--accept', 'done');
  const [a, b] = await Promise.all([l.json('start', id), l.json('start', id)]);
  t.same([a.run.code, b.run.code].sort(), [0, 4], 'exactly one start succeeds');
  const winner = (a.run.code === 0 ? a : b).value.run.id;
  const marker = JSON.parse(readFileSync(join(sb.dir, '.git', 'lazy', 'active', `${id}.json`), 'utf8'));
  t.equal(marker.run, winner, "the loser never touched the winner's marker");
  await eventually(() => invocations().length === 1, 20000, 'the agent');
  await l('stop', id);
});

t.test('a supervisor that starts after its task moved on says so in the task, once, and starts no agent', async (t) => {
  const box = await agentSandbox();
  const { sb, l, scenario, invocations } = box;
  t.teardown(sb.cleanup);
  scenario('hang');
  const id = await l.create('moved on', '--accept', 'done');
  const first = (await l.json('start', id)).value.run.id;
  await eventually(() => invocations().length === 1, 20000, 'the agent');
  t.equal((await l('stop', id)).code, 0);
  await eventually(() => existsSync(join(runDirOf(sb, first), 'outcome.json')), 20000, 'the stopped outcome');
  // A launch whose supervisor comes late: its run and marker stand, the task is already stopped.
  const late = first === 'zzzzzzzz' ? 'yyyyyyyy' : 'zzzzzzzz';
  cpSync(runDirOf(sb, first), runDirOf(sb, late), { recursive: true });
  rmSync(join(runDirOf(sb, late), 'outcome.json'));
  const run = JSON.parse(readFileSync(join(runDirOf(sb, late), 'run.json'), 'utf8'));
  writeFileSync(join(runDirOf(sb, late), 'run.json'), JSON.stringify({ ...run, id: late }));
  const marker = { task: id, run: late, kind: 'turn', since: new Date().toISOString(), owner: selfIdentity() };
  writeFileSync(join(sb.dir, '.git', 'lazy', 'active', `${id}.json`), JSON.stringify(marker));

  const sup = await l('__supervise', late);
  t.equal(sup.code, 0, sup.stderr + sup.stdout);
  t.equal(invocations().length, 1, 'no agent started');
  t.notOk(existsSync(join(sb.dir, '.git', 'lazy', 'active', `${id}.json`)), 'its marker is gone');
  await l('list'); // a reconcile finds nothing left to judge
  const v = (await l.json('show', id)).value;
  t.equal(v.status, 'interrupted');
  const said = v.turns.filter((x: any) => x.run === late).map((x: any) => x.content);
  t.same(said, [
    'interrupted: the agent was not started: the task is interrupted with run ' + (v.current_run ?? 'none'),
  ]);
  t.notMatch(JSON.stringify(v.turns), /supervisor died/, 'no supervisor called dead');
  t.equal(v.attention.reason, 'stopped by the user', 'the stop still asks the person');
});
