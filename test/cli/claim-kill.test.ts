import t from 'tap';
import { chmodSync, existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LAZY, gitSync, type Sandbox } from '../helpers/env.js';
import { activeMarkers, eventually } from '../helpers/agent.js';
import { background, exited } from '../helpers/procs.js';
import { machines, queueTasks } from '../helpers/fleet.js';

// A `lazy work` SIGKILLed while it claims a task (after launch marked the run active and took the task's lock, before
// a supervisor started) leaves a turn marker and a lock that nothing of its own will ever clear. The next command in
// that clone clears both in its ordinary reconcile, the judgement lazy doctor makes (lib/reconcile/dead-run.ts,
// lib/core/lock.ts), and never while the claiming process lives.

const locks = (sb: Sandbox) => {
  try {
    return readdirSync(join(sb.dir, '.git', 'lazy', 'locks'));
  } catch {
    return [];
  }
};

/** A hook script that says it was reached, then waits for the gate file and exits with the code written there. */
function gatedHook(
  path: string,
  root: string,
  condition = 'true',
): { reached: () => boolean; open(code: number): void } {
  const reached = join(root, `reached-${Math.random().toString(36).slice(2)}`);
  const gate = `${reached}.gate`;
  writeFileSync(
    path,
    `#!/bin/sh\n${condition} || exit 0\ntouch '${reached}'\n` +
      `while [ ! -s '${gate}' ]; do sleep 0.05; done\nexit "$(cat '${gate}')"\n`,
  );
  chmodSync(path, 0o755);
  return { reached: () => existsSync(reached), open: (code) => writeFileSync(gate, String(code)) };
}

async function queuedOne(name: string) {
  const { tm, boxes, clock } = await machines(2, {}, name);
  const [seed, w] = boxes;
  const id = await seed!.l.create('claimed by a worker', '--accept', 'done');
  await queueTasks(seed!.sb, [id]);
  if ((await seed!.l('push')).code !== 0) throw new Error('push failed');
  return { tm, w: w!, id, clock };
}

const worker = (sb: Sandbox, ...args: string[]) =>
  background(process.execPath, [LAZY, 'work', 'origin', ...args], {
    cwd: sb.dir,
    env: sb.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });

t.test(
  'a worker SIGKILLed in its claim push: the next list records the crash and clears marker and lock',
  async (t) => {
    const { tm, w, id } = await queuedOne('lazy-midclaim');
    t.teardown(tm.cleanup);
    const hook = gatedHook(join(tm.remote, 'hooks', 'pre-receive'), tm.root);
    const work = worker(w.sb);
    await eventually(hook.reached, 60_000, 'the claim push to reach the remote');
    t.same(activeMarkers(w.sb.dir), [`${id}.json`], 'the claim marked its run active');
    t.ok(locks(w.sb).includes(`${id}.lock`), 'and holds the task lock');
    work.kill('SIGKILL');
    await exited(work);
    hook.open(1); // the remote refuses the orphaned push: the claim never happened there
    const tip = gitSync(w.sb.dir, w.sb.env, ['rev-parse', `refs/lazy/tasks/${id}`]).trim();

    const list = await w.l('list'); // no clock moved: the run never got a supervisor, so nothing can still start it
    t.equal(list.code, 0, list.stderr);
    t.match(list.stdout, new RegExp(`^${id}\\tinterrupted`, 'm'), 'listed interrupted, not working under a dead claim');
    t.same(activeMarkers(w.sb.dir), [], 'the dead turn marker is cleared');
    t.same(locks(w.sb), [], 'the lock the killed worker held is removed, owner record and all');
    const v = (await w.l.json('show', id)).value;
    t.match(
      v.changelog.at(-1),
      { from: 'working', status: 'interrupted', trigger: 'turn_crashed' },
      'its claim commit ends as a crash (the fleet resumes it, under the breaker)',
    );
    t.match(v.turns.at(-1)?.content, /launched the turn died before it started the supervisor/);
    t.equal(v.schedule.queued, true, 'still the fleet queue’s');
    t.not(gitSync(w.sb.dir, w.sb.env, ['rev-parse', `refs/lazy/tasks/${id}`]).trim(), tip);
    const d = await w.l.json('doctor');
    const codes = d.value.findings.map((f: { code: string }) => f.code);
    t.notOk(codes.includes('dead_marker') || codes.includes('stale_lock'), `doctor finds nothing left (${codes})`);
  },
);

t.test('a claim in progress is left alone by a concurrent list and doctor --fix, then runs', async (t) => {
  const { tm, w, id } = await queuedOne('lazy-midclaim-live');
  t.teardown(tm.cleanup);
  const hook = gatedHook(join(tm.remote, 'hooks', 'pre-receive'), tm.root);
  const work = worker(w.sb, '--drain', '--json');
  let out = '';
  work.stdout.on('data', (d) => (out += d));
  await eventually(hook.reached, 60_000, 'the claim push to reach the remote');
  const kept = (after: string) => {
    t.same(activeMarkers(w.sb.dir), [`${id}.json`], `${after} keeps the claim's marker`);
    t.ok(locks(w.sb).includes(`${id}.lock`), `${after} keeps its lock`);
  };
  const l = await w.l('list');
  t.equal(l.code, 0, l.stderr);
  t.match(l.stdout, new RegExp(`^${id}\\tworking`, 'm'), 'listed working under its claim');
  kept('list');
  const d = await w.l.json('doctor', '--fix');
  t.notMatch(d.value.fixed.join('\n'), /marker|lock/, 'doctor --fix clears neither of a live claim');
  kept('doctor --fix');
  t.equal((await w.l.json('show', id)).value.status, 'working', 'the task is still working under the claim');
  hook.open(0);
  t.equal((await exited(work)).code, 0, 'the worker drains');
  const summary = JSON.parse(out);
  t.same(
    summary.finished.map((f: { task: string }) => f.task),
    [id],
    'the claim ran its turn to the end',
  );
  t.equal((await w.l.json('show', id)).value.status, 'blocked');
});

t.test('a launch killed before its commit: nothing is recorded, and marker and lock are cleared', async (t) => {
  const { tm, w, id, clock } = await queuedOne('lazy-midclaim-commit');
  t.teardown(tm.cleanup);
  t.equal((await w.l('pull')).code, 0);
  const tip = gitSync(w.sb.dir, w.sb.env, ['rev-parse', `refs/lazy/tasks/${id}`]).trim();
  // The claim commit is the first move of the task ref here: held in git's transaction, before the ref moves.
  const hook = gatedHook(
    join(w.sb.dir, '.git', 'hooks', 'reference-transaction'),
    tm.root,
    `[ "$1" = prepared ] && grep -q ' refs/lazy/tasks/${id}$'`,
  );
  const work = worker(w.sb);
  await eventually(hook.reached, 60_000, 'the claim commit');
  t.same(activeMarkers(w.sb.dir), [`${id}.json`], 'the launch marked its run active');
  work.kill('SIGKILL');
  await exited(work);
  hook.open(1); // the orphaned git gives up: the ref never moves
  await eventually(() => !existsSync(join(w.sb.dir, '.git', `refs/lazy/tasks/${id}.lock`)), 10_000, 'git to let go');
  rmSync(join(w.sb.dir, '.git', 'hooks', 'reference-transaction')); // from here on the ref may move

  const early = await w.l('list');
  t.equal(early.code, 0, early.stderr);
  t.same(activeMarkers(w.sb.dir), [`${id}.json`], 'within the launch’s grace its marker stays (a commit may land)');
  clock.advance(10_000); // past the launch's own grace: no commit of it can land any more
  const list = await w.l('list');
  t.equal(list.code, 0, list.stderr);
  t.same(activeMarkers(w.sb.dir), [], 'the marker of a launch that never committed is cleared');
  t.same(locks(w.sb), [], 'and its lock removed');
  t.equal(
    gitSync(w.sb.dir, w.sb.env, ['rev-parse', `refs/lazy/tasks/${id}`]).trim(),
    tip,
    'and nothing is written to a task that never ran the run (no outcome of it)',
  );
  t.match(list.stdout, new RegExp(`^${id}\\tbacklog \\(queued`, 'm'), 'still a queued backlog task');
});
