import t from 'tap';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LAZY, type Run, type Sandbox } from '../helpers/env.js';
import { eventually, readJson, runDirOf } from '../helpers/agent.js';
import { background, exited } from '../helpers/procs.js';
import { machines as fleetMachines, queueTasks, refs, runsPerTask } from '../helpers/fleet.js';

// lazy work and signals: SIGTERM stops taking work and finishes (or with --now stops) the running
// turn, pushes its outcome and releases the claim; a worker frozen past its lease finds its claim
// lost at its next renewal and stops that turn without an outcome.

const machines = (n: number, extra: NodeJS.ProcessEnv = {}) => fleetMachines(n, extra, 'lazy-worksig');

function startWorker(sb: Sandbox, args: string[], env: NodeJS.ProcessEnv = {}) {
  const child = background(process.execPath, [LAZY, 'work', ...args, '--json'], {
    cwd: sb.dir,
    env: { ...sb.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  return {
    child,
    done: async () => ({ ...(await exited(child)), stdout, stderr }),
    stderr: () => stderr,
  };
}

/** /proc/<pid>/stat of a process, or '' when it is gone. */
function procStat(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return '';
  }
}

async function seeded(boxes: Awaited<ReturnType<typeof machines>>['boxes'], n: number) {
  const seed = boxes[0]!;
  const ids: string[] = [];
  for (let i = 0; i < n; i++) ids.push(await seed.l.create(`task ${i}`, '--accept', 'done'));
  await queueTasks(seed.sb, ids);
  if ((await seed.l('push')).code !== 0) throw new Error('push failed');
  return ids;
}

t.test('SIGTERM: the running turn finishes, its outcome is pushed, no new work is taken', async (t) => {
  const { tm, boxes } = await machines(2);
  t.teardown(tm.cleanup);
  const ids = await seeded(boxes, 2);
  const w = boxes[1]!;
  const gate = join(w.sb.home, 'gate'); // the turn runs until the worker has its SIGTERM
  const worker = startWorker(w.sb, ['origin'], { FAKE_SCENARIO: 'slow-succeed', FAKE_GATE: gate });
  await eventually(() => runsPerTask([w.log!]).size === 1, 120_000, 'the first turn to start');
  worker.child.kill('SIGTERM');
  writeFileSync(gate, '');
  const r = await worker.done();
  t.equal(r.code, 0, r.stderr);
  const s = JSON.parse(r.stdout);
  t.equal(s.stopped_by, 'SIGTERM');
  t.equal(s.claimed.length, 1, 'one claim, none after the signal');
  t.same(
    s.finished.map((f: { task: string }) => f.task),
    [ids[0]],
    'the running turn finished and its outcome was pushed',
  );
  t.same(refs(tm.remote, 'refs/lazy/leases/'), [], 'its lease is released');
  t.same(refs(tm.remote, `refs/heads/lazy/${ids[0]}`), [`refs/heads/lazy/${ids[0]}`], 'with its branch');
  const seed = boxes[0]!;
  t.equal((await seed.l('pull')).code, 0);
  t.equal((await seed.l.json('show', ids[0]!)).value.status, 'blocked');
  t.equal((await seed.l.json('show', ids[1]!)).value.status, 'backlog', 'the other task was not taken');
});

t.test('SIGTERM with --now: the running turn is stopped as lazy stop does, and that outcome is pushed', async (t) => {
  const { tm, boxes } = await machines(2);
  t.teardown(tm.cleanup);
  const [id] = await seeded(boxes, 1);
  const w = boxes[1]!;
  const worker = startWorker(w.sb, ['origin', '--now'], { FAKE_SCENARIO: 'hang' });
  await eventually(() => runsPerTask([w.log!]).size === 1, 120_000, 'the turn to start');
  worker.child.kill('SIGTERM');
  const r = await worker.done();
  t.equal(r.code, 0, r.stderr);
  const s = JSON.parse(r.stdout);
  t.same(
    s.finished.map((f: { task: string; detail: string }) => [f.task, f.detail]),
    [[id, 'interrupted']],
  );
  t.same(refs(tm.remote, 'refs/lazy/leases/'), [], 'no claim is left without an owner');
  const seed = boxes[0]!;
  t.equal((await seed.l('pull')).code, 0);
  const v = (await seed.l.json('show', id!)).value;
  t.equal(v.status, 'interrupted');
  t.equal(v.changelog.at(-1).trigger, 'stop', 'stopped as lazy stop does: never auto-resumed');
});

t.test('a worker frozen past its lease loses its claim at the next renewal and stops that turn', async (t) => {
  const { tm, boxes } = await machines(3);
  t.teardown(tm.cleanup);
  const [id] = await seeded(boxes, 1);
  const [, a, b] = boxes;
  for (const x of [a!, b!]) t.equal((await x.l('config', 'set', 'work.lease_seconds', '3', '--local')).code, 0);
  const worker = startWorker(a!.sb, ['origin', '--drain'], { FAKE_SCENARIO: 'hang' });
  await eventually(() => runsPerTask([a!.log!]).size === 1, 120_000, 'the turn on A to start');
  const [run] = readdirSync(join(a!.sb.dir, '.git', 'lazy', 'runs'));
  const agentPid = readJson(join(runDirOf(a!.sb, run!), 'agent.json')).pid as number;
  worker.child.kill('SIGSTOP');
  // Long enough for the lease (3 s) to run out with no renewal; B then takes the task over.
  let taken: Run | undefined;
  await eventually(
    async () => {
      taken = await b!.l.spawn('work', 'origin', '--drain', '--json');
      return JSON.parse(taken.stdout).finished?.length === 1;
    },
    120_000,
    'B to take the task over',
  );
  t.equal(taken!.code, 0);
  worker.child.kill('SIGCONT');
  const r = await worker.done();
  t.equal(r.code, 5, r.stdout + r.stderr);
  const s = JSON.parse(r.stdout);
  t.same(
    s.lost.map((l: { task: string; detail: string }) => [l.task, l.detail]),
    [[id, `claim of ${id} lost: lease taken over by machine-2`]],
  );
  t.same(s.finished, [], 'A pushed no outcome');
  // A's agent (hanging) was stopped when the claim was lost: nothing of A's run is left running.
  const stat = procStat(agentPid);
  t.ok(stat === '' || /\) Z /.test(stat), `A's agent is gone (${stat.slice(0, 40)})`);
  const seed = boxes[0]!;
  t.equal((await seed.l('pull')).code, 0);
  const v = (await seed.l.json('show', id!)).value;
  t.equal(v.status, 'blocked', "B's outcome stands");
  t.equal(v.turns.filter((x: { role: string }) => x.role === 'agent').length, 1, 'exactly one outcome');
  t.equal((await a!.l.json('show', id!)).value.status, 'blocked', "A's clone agrees after the loss");
});

t.test(
  'a teammate changes the task during the turn: the release pulls, merges and pushes again; no claim lost',
  async (t) => {
    const { tm, boxes } = await machines(2);
    t.teardown(tm.cleanup);
    const [id] = await seeded(boxes, 1);
    const [seed, w] = boxes;
    // The turn runs until the teammate's pull, comment and push are done (they took over 2.5 s once).
    const gate = join(w!.sb.home, 'gate');
    const worker = startWorker(w!.sb, ['origin', '--drain'], { FAKE_SCENARIO: 'slow-succeed', FAKE_GATE: gate });
    await eventually(() => runsPerTask([w!.log!]).size === 1, 120_000, 'the turn to start');
    t.equal((await seed!.l('pull')).code, 0);
    t.equal((await seed!.l('comment', id!, '-m', 'a note while it works')).code, 0);
    t.equal((await seed!.l('push')).code, 0, 'the comment reaches the remote while the turn runs');
    writeFileSync(gate, '');
    const r = await worker.done();
    t.equal(r.code, 0, r.stderr);
    const s = JSON.parse(r.stdout);
    t.same(s.lost, [], 'a moved task ref is not a lost claim');
    t.same(
      s.finished.map((f: { task: string; detail: string }) => [f.task, f.detail]),
      [[id, 'blocked']],
    );
    t.equal((await seed!.l('pull')).code, 0);
    const v = (await seed!.l.json('show', id!)).value;
    t.equal(v.status, 'blocked');
    t.ok(
      v.turns.some((x: { content: string }) => x.content === 'a note while it works'),
      'the comment and the outcome both landed',
    );
    t.same(refs(tm.remote, 'refs/lazy/leases/'), []);
  },
);
