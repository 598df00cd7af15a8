import t from 'tap';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventually, readJson, runDirOf } from '../helpers/agent.js';
import { machines as fleetMachines, refs, runsPerTask } from '../helpers/fleet.js';
import {
  agentAlive,
  drainUntilFinished,
  killMachine,
  leaseStays,
  procStat,
  seeded,
  startWorker,
} from '../helpers/workers.js';

// lazy work and signals: SIGTERM stops taking work and finishes (or with --now stops) the running
// turn, pushes its outcome and releases the claim; a machine frozen past its lease finds its claim
// lost and stops that turn without an outcome; a killed worker's supervisor keeps its lease, so no
// second agent runs beside its agent; identity is the clone's, not the host name's (issue 27).

const machines = (n: number, extra: NodeJS.ProcessEnv = {}) => fleetMachines(n, extra, 'lazy-worksig');

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

t.test('a machine frozen past its lease (worker, supervisor, agent) loses its claim and stops that turn', async (t) => {
  const { tm, boxes, clock } = await machines(3);
  t.teardown(tm.cleanup);
  const [id] = await seeded(boxes, 1);
  const [, a, b] = boxes;
  for (const x of [a!, b!]) t.equal((await x.l('config', 'set', 'work.lease_seconds', '4', '--local')).code, 0);
  const worker = startWorker(a!.sb, ['origin', '--drain'], { FAKE_SCENARIO: 'hang' });
  await eventually(() => runsPerTask([a!.log!]).size === 1, 120_000, 'the turn on A to start');
  const [run] = readdirSync(join(a!.sb.dir, '.git', 'lazy', 'runs'));
  const agentPid = readJson(join(runDirOf(a!.sb, run!), 'agent.json')).pid as number;
  // The whole machine freezes (a laptop's lid): its supervisor renews the lease otherwise (issue 27).
  const supervisorPid = readJson(join(runDirOf(a!.sb, run!), 'run.json')).supervisor.pid as number;
  const frozen = [worker.child.pid!, supervisorPid, -agentPid];
  for (const pid of frozen) process.kill(pid, 'SIGSTOP');
  // The lease (4 s) runs out with no renewal: by B's clock (in-process), moved past any lease A set or had in flight
  // when it froze. B then takes the task over.
  clock.advance(5000);
  const taken = await drainUntilFinished(b!.l, 'B to take the task over');
  t.equal(taken.code, 0);
  for (const pid of frozen) process.kill(pid, 'SIGCONT');
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

t.test(
  'a killed worker: its supervisor keeps the lease while the agent runs (no second agent beside it), then releases it (issue 27)',
  async (t) => {
    const { tm, boxes, clock } = await machines(3);
    t.teardown(tm.cleanup);
    const [id] = await seeded(boxes, 1);
    const [seed, a, b] = boxes;
    for (const x of [a!, b!]) t.equal((await x.l('config', 'set', 'work.lease_seconds', '6', '--local')).code, 0);
    const gate = join(a!.sb.home, 'gate');
    const worker = startWorker(a!.sb, ['origin', '--drain'], { FAKE_SCENARIO: 'slow-succeed', FAKE_GATE: gate });
    await eventually(() => agentAlive(a!.sb), 120_000, 'the turn on A to start');
    worker.child.kill('SIGKILL'); // only the worker: its supervisor and agent live on
    await worker.done();

    // Both clones' agents, sampled every 20 ms from here to the end: how long both ever ran at once.
    let overlapMs = 0;
    let both: number | null = null;
    const sample = setInterval(() => {
      const now = Date.now();
      if (agentAlive(a!.sb) && agentAlive(b!.sb)) both ??= now;
      else if (both !== null) {
        overlapMs = Math.max(overlapMs, now - both);
        both = null;
      }
    }, 20);
    t.teardown(() => clearInterval(sample));

    // A lease and a half of B looking for work while A's agent runs: the lease stays A's. (6 s: a renewal's
    // push must land within a third of a lease, or the supervisor stops its agent, and CI's machine is busy.)
    // B looks in-process (its clock is not moved here: the system's), at a poll's pace: each look is a whole pull
    // and pick, and what passes meanwhile is A's renewals in real time.
    const until = Date.now() + 9000;
    while (Date.now() < until) {
      const r = await b!.l('work', 'origin', '--drain', '--json');
      t.equal(r.code, 0, r.stderr);
      if (JSON.parse(r.stdout).claimed.length) break;
      await clock.poll(500);
    }
    t.same(runsPerTask([b!.log!]), new Map(), 'B started no agent while A ran one');
    t.ok(agentAlive(a!.sb), "A's agent still runs, under a lease its supervisor renews");

    // A teammate comments meanwhile: the remote's task ref moves, so the supervisor's first release is turned
    // away and it pulls and pushes again, as a worker would.
    t.equal((await seed!.l('pull')).code, 0);
    t.equal((await seed!.l('comment', id!, '-m', 'a note while it works')).code, 0);
    t.equal((await seed!.l('push')).code, 0);
    // A's turn ends; its worker is gone, so its supervisor pushes the outcome and deletes the lease itself.
    writeFileSync(gate, '');
    await eventually(() => refs(tm.remote, 'refs/lazy/leases/').length === 0, 60_000, "A's supervisor to release");
    clearInterval(sample);
    t.equal(overlapMs, 0, 'two agents never ran on the task at once');
    t.equal(both, null);
    t.equal((await seed!.l('pull')).code, 0);
    const v = (await seed!.l.json('show', id!)).value;
    t.equal(v.status, 'blocked', "A's turn's outcome is on the remote: its work is not lost with its worker");
    t.equal(v.turns.filter((x: { role: string }) => x.role === 'agent').length, 1, 'exactly one outcome');
    t.ok(
      v.turns.some((x: { content: string }) => x.content === 'a note while it works'),
      "the teammate's comment and the outcome both landed",
    );
    t.notOk(
      v.changelog.some((c: { trigger: string }) => c.trigger === 'turn_crashed'),
      'and no crash',
    );
    const after = await b!.l('work', 'origin', '--drain', '--json');
    t.same(JSON.parse(after.stdout).claimed, [], 'nothing left for B');
    t.same(runsPerTask([b!.log!]), new Map(), 'B never ran an agent on it');
    // A worker started again in A's clone finds the claim released, and nothing to do.
    const again = await a!.l.spawn('work', 'origin', '--drain', '--json');
    t.equal(again.code, 0, again.stderr);
    t.same(JSON.parse(again.stdout).lost, []);
  },
);

t.test('two clones on one machine under one host name: a takeover from the dead one runs (issue 27)', async (t) => {
  const { tm, boxes, clock } = await machines(3, { LAZY_HOST: 'same-box' });
  t.teardown(tm.cleanup);
  const [id] = await seeded(boxes, 1);
  const [seed, a, b] = boxes;
  for (const x of [a!, b!]) t.equal((await x.l('config', 'set', 'work.lease_seconds', '4', '--local')).code, 0);
  const worker = startWorker(a!.sb, ['origin', '--drain'], { FAKE_SCENARIO: 'hang' });
  await eventually(() => agentAlive(a!.sb), 120_000, 'the turn on A to start');
  await killMachine(a!.sb, worker);
  t.ok(await leaseStays(tm.remote, id!, 4000), "A's lease is no longer renewed");
  clock.advance(5000); // past the lease (4 s) A last set, by B's clock
  const taken = await drainUntilFinished(b!.l, 'B to take the task over');
  t.notMatch(taken.stderr, /skipped/, 'not skipped as a branch deleted outside lazy');
  t.same(
    JSON.parse(taken.stdout).claimed.map((c: { detail: string }) => c.detail),
    ['takeover'],
  );
  t.equal((await seed!.l('pull')).code, 0);
  const v = (await seed!.l.json('show', id!)).value;
  t.equal(v.status, 'blocked', "B's turn ran to its end");
  t.match(
    v.changelog.find((c: { trigger: string }) => c.trigger === 'turn_crashed')?.reason,
    /lease of same-box expired/,
  );
});

t.test(
  "a worker restarted under a new host name settles its clone's dead claims instead of renewing them (issue 27)",
  async (t) => {
    const { tm, boxes } = await machines(2);
    t.teardown(tm.cleanup);
    const [id] = await seeded(boxes, 1);
    const [seed, a] = boxes;
    const worker = startWorker(a!.sb, ['origin', '--drain'], { FAKE_SCENARIO: 'hang', LAZY_HOST: 'container-1' });
    await eventually(() => agentAlive(a!.sb), 120_000, 'the turn to start');
    await killMachine(a!.sb, worker);
    // The container comes back under a new name, with the same clone.
    const again = startWorker(a!.sb, ['origin', '--drain'], { LAZY_HOST: 'container-2' });
    const stop = setTimeout(() => again.child.kill('SIGKILL'), 90_000);
    const r = await again.done();
    clearTimeout(stop);
    t.equal(r.code, 0, `--drain exits (${r.signal ?? ''}) ${r.stderr}`);
    const s = JSON.parse(r.stdout);
    t.same(
      s.finished.map((f: { task: string; detail: string }) => [f.task, f.detail]),
      [
        [id, 'interrupted'],
        [id, 'blocked'],
      ],
      'the dead turn is released as a crash, then the task is resumed and runs to its end',
    );
    t.equal((await seed!.l('pull')).code, 0);
    t.equal((await seed!.l.json('show', id!)).value.status, 'blocked');
    t.same(refs(tm.remote, 'refs/lazy/leases/'), []);
  },
);
