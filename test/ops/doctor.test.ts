import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sandbox, cli, gitSync, type Sandbox } from '../helpers/env.js';
import { agentSandbox, eventually, readJson, runDirOf, reviewed } from '../helpers/agent.js';
import { cloneTask } from '../helpers/plant.js';
import { concurrent } from '../helpers/concurrent.js';
import { alive } from '../helpers/supervisors.js';

// issue 8, "nothing is left behind that lazy cannot see or repair": doctor finds and
// repairs damaged refs, leftovers of killed accepts, stale locks and lost turn bookkeeping;
// messages say exactly what happened.

const codes = (r: any) => r.value.findings.map((f: any) => f.code);
const blob = (sb: Sandbox) => gitSync(sb.dir, sb.env, ['hash-object', '-w', '--stdin'], 'not a task\n').trim();

const test = concurrent(5);

test('a task ref pointed at a blob or deleted is found by doctor and restored by --fix', async (t) => {
  const sb = sandbox();
  t.teardown(sb.cleanup);
  const l = cli(sb);
  const id = await l.create('keep me');
  const other = await l.create('bystander');
  await l('comment', id, '-m', 'some history');
  t.ok(
    existsSync(join(sb.dir, '.git', 'logs', 'refs', 'lazy', 'tasks', id)),
    'lazy keeps a reflog for its refs even without lazy init',
  );
  const good = gitSync(sb.dir, sb.env, ['rev-parse', `refs/lazy/tasks/${id}`]).trim();

  gitSync(sb.dir, sb.env, ['update-ref', `refs/lazy/tasks/${id}`, blob(sb)]);
  const list = await l.json('list');
  t.equal(list.run.code, 0, 'the rest of the store keeps working');
  t.same(
    list.value.map((r: any) => r.id),
    [other],
  );
  const d = await l.json('doctor');
  t.equal(d.run.code, 6);
  const f = d.value.findings.find((x: any) => x.code === 'task_ref_damaged');
  t.equal(f?.details.restore, good, 'the last good tip is named');
  t.match(f?.message, /points at a blob.*lazy doctor --fix restores/);
  const fix = await l.json('doctor', '--fix');
  t.equal(fix.run.code, 0, fix.run.stdout);
  t.match(
    fix.value.fixed.join('\n'),
    new RegExp(`restored refs/lazy/tasks/${id} to its last good tip ${good.slice(0, 10)}`),
  );
  t.equal(gitSync(sb.dir, sb.env, ['rev-parse', `refs/lazy/tasks/${id}`]).trim(), good);
  t.equal((await l.json('show', id)).value.turns.at(-1).content, 'some history', 'nothing of the task was lost');

  gitSync(sb.dir, sb.env, ['update-ref', '-d', `refs/lazy/tasks/${id}`]);
  await l('list'); // the listing cache forgets it: doctor must still find it
  const gone = await l.json('doctor');
  t.equal(gone.run.code, 6);
  t.equal(gone.value.findings.find((x: any) => x.code === 'task_ref_deleted')?.details.restore, good);
  t.equal((await l.json('doctor', '--fix')).run.code, 0);
  t.equal(
    gitSync(sb.dir, sb.env, ['rev-parse', `refs/lazy/tasks/${id}`]).trim(),
    good,
    'a deleted task ref is recreated at its last tip',
  );
  t.equal((await l.json('doctor')).run.code, 0, 'healthy again');

  // A lone creation commit that no ref ever named is what a create killed before its ref
  // write leaves: not a lost task.
  cloneTask(sb, other, 'zzzz2222');
  const tree = gitSync(sb.dir, sb.env, ['rev-parse', 'refs/lazy/tasks/zzzz2222^{tree}']).trim();
  gitSync(sb.dir, sb.env, ['update-ref', '-d', 'refs/lazy/tasks/zzzz2222']);
  gitSync(sb.dir, sb.env, ['commit-tree', tree, '-m', 'lazy: create zzzz2222\n\nLazy-Task: zzzz2222\nLazy-Clock: 1']);
  t.notOk(
    codes(await l.json('doctor')).includes('task_ref_deleted'),
    'an unacknowledged create is not reported as a loss',
  );
});

test('refs/lazy/config pointing at a blob: commands warn and keep its last good version; doctor --fix restores it', async (t) => {
  const sb = sandbox();
  t.teardown(sb.cleanup);
  const l = cli(sb);
  t.equal((await l('config', 'set', 'watchdog_ms', '5000')).code, 0);
  t.equal((await l('config', 'set', 'protected', 'secrets/**')).code, 0);
  const good = gitSync(sb.dir, sb.env, ['rev-parse', 'refs/lazy/config']).trim();
  gitSync(sb.dir, sb.env, ['update-ref', 'refs/lazy/config', blob(sb)]);
  const id = await l.create('still works');
  const start = await l('start', id); // reads the config: no criterion, so no agent runs
  t.equal(start.code, 0, start.stderr);
  t.match(
    start.stderr,
    new RegExp(
      `refs/lazy/config points at a blob, not a commit: using its last good version ${good.slice(0, 10)} \\(lazy doctor --fix restores it\\)`,
    ),
  );
  const get = await l.json('config', 'get', 'protected');
  t.equal(get.run.code, 0);
  t.same(get.value.value, ['secrets/**'], 'damaging the ref does not switch protection off');
  const d = await l.json('doctor');
  t.equal(d.run.code, 6);
  t.equal(d.value.findings.find((f: any) => f.code === 'config_ref_damaged')?.details.restore, good);
  t.equal((await l.json('doctor', '--fix')).run.code, 0);
  t.equal(gitSync(sb.dir, sb.env, ['rev-parse', 'refs/lazy/config']).trim(), good);
  t.equal((await l.json('config', 'get', 'watchdog_ms')).value.value, 5000, 'the settings are back');

  // With no readable version anywhere, commands still run, on the defaults.
  rmSync(join(sb.dir, '.git', 'logs', 'refs', 'lazy', 'config'));
  gitSync(sb.dir, sb.env, ['update-ref', 'refs/lazy/config', blob(sb)]);
  const bare = await l('comment', id, '-m', 'still here');
  t.equal(bare.code, 0);
  const list = await l('config', 'list');
  t.equal(list.code, 0, 'config list still answers');
  t.match((await l('start', await l.create('x'))).stderr, /using the defaults and local settings/);
});

test('a complete task whose branch and worktree stayed: doctor reports, --fix removes only what the accept took', async (t) => {
  const box = await agentSandbox();
  const { sb, l } = box;
  t.teardown(sb.cleanup);
  const id = await reviewed(box);
  const head = gitSync(sb.dir, sb.env, ['rev-parse', `lazy/${id}`]).trim();
  t.equal((await l.json('accept', id, '--yes')).run.code, 0);
  // What an accept killed right after its complete commit leaves behind.
  const wt = join(sb.dir, '.lazy', 'worktrees', id);
  gitSync(sb.dir, sb.env, ['worktree', 'add', '-q', '-b', `lazy/${id}`, wt, head]);
  const d = await l.json('doctor');
  const f = d.value.findings.find((x: any) => x.code === 'accept_leftovers');
  t.match(
    f?.message,
    new RegExp(
      `task ${id} is complete but its branch lazy/${id} and worktree .* stayed behind; lazy doctor --fix removes them`,
    ),
  );
  t.equal((await l.json('doctor', '--fix')).run.code, 0);
  t.notOk(existsSync(wt), 'worktree removed');
  t.equal(gitSync(sb.dir, sb.env, ['branch', '--list', `lazy/${id}`]).trim(), '', 'branch deleted');

  // A branch with work the accepted commit does not hold is kept, and doctor says why.
  gitSync(sb.dir, sb.env, ['branch', `lazy/${id}`, head]);
  gitSync(sb.dir, sb.env, ['worktree', 'add', '-q', wt, `lazy/${id}`]);
  writeFileSync(join(wt, 'later.txt'), 'later work\n');
  gitSync(wt, sb.env, ['add', 'later.txt']);
  gitSync(wt, sb.env, ['commit', '-q', '-m', 'later']);
  const kept = await l.json('doctor', '--fix');
  t.match(
    kept.value.findings.find((x: any) => x.code === 'accept_leftovers')?.details.kept,
    /holds work the accepted commit does not/,
  );
  t.ok(existsSync(join(wt, 'later.txt')), 'nothing unmerged was removed');
});

test('a task stuck working after .git/lazy was deleted: doctor explains, --fix interrupts it once nothing runs', async (t) => {
  const box = await agentSandbox({ detached: true }); // the test stops the supervisor: a process of its own
  const { sb, l } = box;
  t.teardown(sb.cleanup);
  box.scenario('hang');
  const id = await l.create('hang', '--accept', 'done');
  const started = await l.json('start', id);
  t.equal(started.run.code, 0, started.run.stderr);
  const run = started.value.run.id;
  const agent = await eventually(
    () => existsSync(join(runDirOf(sb, run), 'agent.json')) && readJson(join(runDirOf(sb, run), 'agent.json')),
    20_000,
    'the agent to start',
  );
  const supervisor = readJson(join(runDirOf(sb, run), 'run.json')).supervisor;
  t.teardown(() => {
    for (const p of [agent.pid, supervisor?.pid])
      try {
        process.kill(p, 'SIGKILL');
      } catch {
        /* gone */
      }
  });
  // Frozen, not dead: a live supervisor would write its heartbeat, run record or a lock back into the
  // deleted folder, and the next command's reconcile, not doctor, would then interrupt the task.
  for (const p of [supervisor.pid, agent.pid]) process.kill(p, 'SIGSTOP');
  rmSync(join(sb.dir, '.git', 'lazy'), { recursive: true, force: true });

  const live = await l.json('doctor', '--fix');
  const f = live.value.findings.find((x: any) => x.code === 'stuck_working');
  t.ok(f?.details.pids.includes(agent.pid), 'the agent still running in the worktree is named');
  t.match(f?.message, /no turn of it is running here.*processes still run in its worktree/);
  t.equal(
    (await l.json('show', id)).value.status,
    'working',
    'nothing is changed while a process may still work there',
  );

  for (const p of [agent.pid, supervisor.pid])
    try {
      process.kill(p, 'SIGKILL');
    } catch {
      /* gone */
    }
  // Dead or a zombie, as lazy judges it: a zombie's new parent may reap it late.
  await eventually(() => !alive(agent.pid), 20_000, 'the agent to die');
  const fix = await l.json('doctor', '--fix');
  t.match(fix.value.fixed.join('\n'), new RegExp(`marked ${id} interrupted`));
  const v = (await l.json('show', id)).value;
  t.equal(v.status, 'interrupted');
  t.ok(v.available_actions.includes('resume'), 'and it can be resumed');
});

test('doctor reports leftovers and --fix removes only what is verifiably dead', async (t) => {
  const { mkdirSync, writeFileSync, utimesSync, existsSync, statSync } = await import('node:fs');
  const { join } = await import('node:path');
  const sb = sandbox();
  t.teardown(sb.cleanup);
  const l = cli(sb);
  const id = await l.create('healthy');
  const locks = join(sb.dir, '.git', 'lazy', 'locks');
  mkdirSync(join(locks, `${id}.lock`), { recursive: true });
  const ino = statSync(join(locks, `${id}.lock`)).ino;
  writeFileSync(
    join(locks, `${id}.owner.json`),
    JSON.stringify({
      host: (await import('node:os')).hostname(),
      boot_id: null,
      pid: 999999,
      start_ticks: 1,
      inode: ino,
    }),
  );
  const stray = join(sb.dir, '.git', 'objects', 'ab', 'cdef.tmp-1-00000000');
  mkdirSync(join(sb.dir, '.git', 'objects', 'ab'), { recursive: true });
  writeFileSync(stray, 'half an object');
  const old = new Date(Date.now() - 3600_000);
  utimesSync(stray, old, old);
  const d = await l.json('doctor');
  t.equal(d.run.code, 0, 'leftovers are warnings, not unhealthy data');
  // The dead lock is no leftover: doctor's own reconcile, as any command's, removed it (clearStaleLocks).
  // Whether the default agent (claude) is on this PATH is the machine's: test/ops/doctor-agents.test.ts covers it.
  const store = d.value.findings.filter((f: any) => f.code !== 'default_agent_unusable');
  t.same(store.map((f: any) => f.code).sort(), ['stray_temp_objects']);
  t.notOk(existsSync(join(locks, `${id}.lock`)), 'the dead lock is gone');
  t.notOk(existsSync(join(locks, `${id}.owner.json`)), 'with its owner record');
  const fixed = await l.json('doctor', '--fix');
  t.equal(fixed.value.fixed.length, 1);
  t.notOk(existsSync(stray), 'the half-written object is gone');
  t.equal((await l('comment', id, '-m', 'still writable')).code, 0);
});
