import t from 'tap';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { LAZY, cli, gitSync } from '../helpers/env.js';
import { eventually, readJson, runDirOf } from '../helpers/agent.js';
import { background, exited } from '../helpers/procs.js';
import { machines, queueTasks, refs, runsPerTask } from '../helpers/fleet.js';
import { leaseStays } from '../helpers/workers.js';

// lazy work as a real process: N workers on N clones of one bare remote drain a queue, each
// task run exactly once; a worker SIGKILLed mid-turn loses its task to another after its lease.

const TASKS = 12;

t.test(
  '4 workers drain 12 queued tasks: each runs exactly once, every outcome and branch reaches the remote',
  async (t) => {
    const { tm, boxes } = await machines(5, { FAKE_SCENARIO: 'slow-succeed', FAKE_SLEEP_MS: '200' });
    t.teardown(tm.cleanup);
    const [seed, ...workers] = boxes;
    const ids: string[] = [];
    for (let i = 0; i < TASKS; i++) ids.push(await seed!.l.create(`task ${i}`, '--accept', 'done'));
    await queueTasks(seed!.sb, ids);
    t.equal((await seed!.l('push')).code, 0);
    // Three turns each, with claims and pushes racing: each claim a race of every worker free at the time (all four
    // at first), whose losers built their claim for nothing; 20 tasks made more of the same races, at 5/3 the cost.
    const drain = (w: (typeof workers)[number]) => w.l.spawnWithin(240_000, 'work', 'origin', '--drain', '--json');
    const runs = await Promise.all(workers.map(drain));
    for (const r of runs)
      t.equal(r.code, 0, `a worker exits 0 when drained (${r.signal ?? 'no signal'}): ${r.stdout.slice(0, 600)}`);
    const summaries = runs.map((r) => JSON.parse(r.stdout));
    const finished = summaries.flatMap((s) => s.finished.map((f: { task: string }) => f.task));
    t.same([...finished].sort(), [...ids].sort(), 'every task finished once, across the workers');
    const claims = summaries.flatMap((s) => s.claimed as { ms: number; push_ms: number }[]);
    t.ok(
      claims.length > 0 && claims.every((c) => c.ms >= c.push_ms && c.push_ms > 0),
      'each claim reports its latency and its push',
    );
    t.ok(
      summaries.every((s) => Array.isArray(s.waiting) && s.waiting.length === 0),
      'nothing left waiting',
    );
    const counts = runsPerTask(workers.map((w) => w.log!));
    t.same([...counts.keys()].sort(), [...ids].sort(), 'every task was run');
    t.ok(
      [...counts.values()].every((n) => n === 1),
      `each exactly once (${[...counts.values()].join(',')})`,
    );
    t.ok(summaries.filter((s) => s.finished.length > 0).length >= 2, 'the work was shared');
    for (const id of ids)
      t.same(refs(tm.remote, `refs/heads/lazy/${id}`), [`refs/heads/lazy/${id}`], `branch of ${id} on the remote`);
    t.same(refs(tm.remote, 'refs/lazy/leases/'), [], 'no lease is left on the remote');
    t.same(refs(workers[0]!.sb.dir, 'refs/lazy/leases/'), [], 'no lease ref is ever written locally');
    t.equal((await seed!.l('pull')).code, 0);
    const list = await seed!.l.json('list', '--json');
    const byId = new Map((list.value as { id: string; status: string }[]).map((x) => [x.id, x.status]));
    t.same(
      ids.map((id) => byId.get(id)),
      ids.map(() => 'blocked'),
      `a separate clone sees all ${TASKS} under review`,
    );
  },
);

const LEASE_MS = 5000;
const leaseUntil = (remote: string, id: string) => {
  try {
    const text = gitSync(remote, process.env, ['show', `refs/lazy/leases/${id}:lease.yaml`]);
    return Date.parse(/until: ['"]?([^'"\n]+)/.exec(text)![1]!);
  } catch {
    return null;
  }
};

t.test(
  'lease takeover: a SIGKILLed worker loses its task to another after the lease; its stale push is refused',
  async (t) => {
    const { tm, boxes, clock } = await machines(3);
    t.teardown(tm.cleanup);
    const [seed, a, b] = boxes;
    for (const x of [a!, b!])
      t.equal((await x.l('config', 'set', 'work.lease_seconds', String(LEASE_MS / 1000), '--local')).code, 0);
    const id = await seed!.l.create('the task a dead machine held', '--accept', 'done');
    await queueTasks(seed!.sb, [id]);
    t.equal((await seed!.l('push')).code, 0);

    // A claims it and its agent hangs; then the whole machine dies: worker, supervisor and agent, by SIGKILL.
    const worker = background(process.execPath, [LAZY, 'work', 'origin'], {
      cwd: a!.sb.dir,
      env: { ...a!.sb.env, FAKE_SCENARIO: 'hang' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    await eventually(() => runsPerTask([a!.log!]).get(id) === 1, 120_000, 'the agent on A to start');
    await eventually(() => leaseUntil(tm.remote, id), 10_000, "A's lease on the remote");
    const runs = readdirSync(join(a!.sb.dir, '.git', 'lazy', 'runs'));
    t.equal(runs.length, 1, 'one run on A');
    const run = readJson(join(runDirOf(a!.sb, runs[0]!), 'run.json'));
    const agent = readJson(join(runDirOf(a!.sb, runs[0]!), 'agent.json'));
    worker.kill('SIGKILL');
    await exited(worker);
    for (const pid of [run.supervisor.pid, -agent.pid, agent.pid]) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
    // Nothing of A renews the lease any more (else the clock's jump below would let B take a live claim).
    t.ok(await leaseStays(tm.remote, id, LEASE_MS), "A's lease is no longer renewed");
    // After the lease, B takes it over and completes it. The lease runs out by the clock of the worker that judges
    // it: B's (in-process) moves a lease past now, later than any renewal A made (or had in flight) could reach.
    const until = leaseUntil(tm.remote, id)!;
    clock.advance(LEASE_MS + 1000);
    t.ok(until < clock.now(), "A's lease has run out by B's clock");
    const taken = await b!.l('work', 'origin', '--drain', '--json');
    t.equal(taken.code, 0, taken.stdout);
    const summary = JSON.parse(taken.stdout);
    t.same(
      summary.claimed.map((c: { task: string; detail: string }) => [c.task, c.detail]),
      [[id, 'takeover']],
    );
    t.same(
      summary.finished.map((c: { task: string }) => c.task),
      [id],
      'B finished it',
    );
    const tip = gitSync(tm.remote, process.env, ['rev-parse', `refs/lazy/tasks/${id}`]).trim();
    t.equal((await seed!.l('pull')).code, 0);
    const v = (await seed!.l.json('show', id)).value;
    t.equal(v.status, 'blocked', 'it completed');
    t.ok(
      v.changelog.some(
        (c: { reason: string; trigger: string }) =>
          c.trigger === 'turn_crashed' && c.reason === 'lease of machine-1 expired',
      ),
      'the takeover is recorded as a crash: lease of machine-1 expired',
    );
    t.equal(v.turns.filter((x: { role: string }) => x.role === 'agent').length, 1, 'exactly one outcome');
    t.equal(runsPerTask([b!.log!]).get(id), 1, 'B ran it once');

    // A comes back: its claim's push is refused, nothing lands, and it says so (exit 5).
    const back = await a!.l.spawn('work', 'origin', '--drain', '--json');
    t.equal(back.code, 5, back.stdout + back.stderr);
    const lost = JSON.parse(back.stdout).lost;
    t.same(
      lost.map((l: { task: string }) => l.task),
      [id],
    );
    t.match(lost[0].detail, new RegExp(`claim of ${id} lost: lease taken over by`));
    t.equal(
      gitSync(tm.remote, process.env, ['rev-parse', `refs/lazy/tasks/${id}`]).trim(),
      tip,
      'the remote task did not move',
    );
    const onA = (await a!.l.json('show', id)).value;
    t.equal(onA.status, 'blocked', "A's clone now agrees with the remote");
    t.same(onA.concurrent_changes, [], 'what A committed for its lost run alone was dropped, not merged');
    t.equal(onA.tip, tip, "A's task ref is the remote's");
    t.equal(runsPerTask([a!.log!]).get(id), 1, 'A never ran it again');
  },
);

t.test('one worker runs higher priorities first, equal priorities oldest first', async (t) => {
  const { tm, boxes } = await machines(2);
  t.teardown(tm.cleanup);
  const [seed, w] = boxes;
  const ids: string[] = [];
  for (let i = 0; i < 4; i++) ids.push(await seed!.l.create(`task ${i}`, '--accept', 'done'));
  await queueTasks(seed!.sb, [ids[0]!, ids[1]!]);
  await queueTasks(seed!.sb, [ids[2]!], 5);
  await queueTasks(seed!.sb, [ids[3]!], 1);
  t.equal((await seed!.l('push')).code, 0);
  const r = await w!.l('work', '--max', '1', '--drain', '--json'); // the order is behaviour: in-process
  t.equal(r.code, 0, r.stderr);
  const order = JSON.parse(r.stdout).claimed.map((c: { task: string }) => c.task);
  t.same(order, [ids[2], ids[3], ids[0], ids[1]]);
});

t.test(
  'a crashed fleet turn goes back to the queue: resumed by a worker under the breaker, then left for a person',
  async (t) => {
    const { tm, boxes } = await machines(3);
    t.teardown(tm.cleanup);
    const [seed, w0, x0] = boxes;
    const w = { ...w0!, l: cli({ ...w0!.sb, env: { ...w0!.sb.env, FAKE_SCENARIO: 'crash,succeed' } }) };
    const x = { ...x0!, l: cli({ ...x0!.sb, env: { ...x0!.sb.env, FAKE_SCENARIO: 'crash' } }) };
    const once = await seed!.l.create('crashes once', '--accept', 'done');
    await queueTasks(seed!.sb, [once]);
    t.equal((await seed!.l('push')).code, 0);
    const r = await w!.l('work', '--drain', '--json');
    t.equal(r.code, 0, r.stderr);
    const s = JSON.parse(r.stdout);
    t.same(
      s.claimed.map((c: { detail: string }) => c.detail),
      ['start', 'resume'],
      'claimed, crashed, claimed again as an auto-resume',
    );
    t.same(
      s.finished.map((f: { detail: string }) => f.detail),
      ['interrupted', 'blocked'],
    );
    t.equal((await seed!.l('pull')).code, 0);
    const v = (await seed!.l.json('show', once)).value;
    t.equal(v.status, 'blocked');
    const resumed = v.changelog.find((c: { trigger: string }) => c.trigger === 'auto_resume');
    t.equal(resumed?.details?.claim?.host, 'machine-1', "the resume is a worker's claim");

    // Always crashing: three crashes in a row trip the breaker, and the task waits for a person.
    const always = await seed!.l.create('always crashes', '--accept', 'done');
    await queueTasks(seed!.sb, [always]);
    t.equal((await seed!.l('push')).code, 0);
    const r2 = await x!.l('work', '--drain', '--json');
    t.equal(r2.code, 0, r2.stderr);
    t.equal(JSON.parse(r2.stdout).claimed.length, 3, 'three turns, then the breaker');
    t.equal(runsPerTask([x!.log!]).get(always), 3);
    t.equal((await seed!.l('pull')).code, 0);
    const v2 = (await seed!.l.json('show', always)).value;
    t.equal(v2.status, 'interrupted');
    t.equal(v2.consecutive_interruptions, 3);
    t.same(refs(tm.remote, 'refs/lazy/leases/'), [], 'no claim left without an owner');
  },
);
