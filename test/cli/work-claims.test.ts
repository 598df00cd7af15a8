import t from 'tap';
import { gitSync } from '../helpers/env.js';
import { eventually } from '../helpers/agent.js';
import { machines, refs } from '../helpers/fleet.js';
import { machine } from '../helpers/fleet-deps.js';
import { agentAlive, killMachine, seeded, startWorker } from '../helpers/workers.js';
import { writeLease } from '../../lib/fleet/lease.js';
import { leaseRef, taskRef } from '../../lib/core/names.js';

// Claims a person must break (issue 27): a lease no worker can renew or take over pins its task,
// `lazy work` and `lazy doctor` name it, and `lazy stop --force` breaks it by compare-and-swap on the
// remote, keeping what the dead run left on its branch. Two clones on one machine are two places.

const remoteTip = (remote: string, ref: string) => {
  try {
    return gitSync(remote, process.env, ['rev-parse', '--verify', '-q', ref]).trim();
  } catch {
    return null;
  }
};

t.test('a lease valid until 2999 on a dead machine: named by work and doctor, broken by stop --force', async (t) => {
  const { tm, boxes } = await machines(3, {}, 'lazy-pinned');
  t.teardown(tm.cleanup);
  const [id] = await seeded(boxes, 1);
  const [seed, a, b] = boxes;
  const worker = startWorker(a!.sb, ['origin', '--drain'], { FAKE_SCENARIO: 'hang' });
  await eventually(() => agentAlive(a!.sb), 120_000, 'the turn on A to start');
  await killMachine(a!.sb, worker);
  // The dead machine's last lease, as a broken clock (or anyone with push rights) left it: until 2999.
  const m = await machine(a!.sb);
  t.teardown(() => m.close());
  const held = remoteTip(tm.remote, leaseRef(id!))!;
  const forged = await m.as(async () =>
    writeLease(
      m.deps.repo,
      {
        task: id!,
        run: 'zzzz0000',
        host: 'machine-1',
        until: '2999-01-01T00:00:00.000Z',
        renewed_at: '2026-01-01T00:00:00.000Z',
      },
      held,
      await m.deps.store.person(),
    ),
  );
  gitSync(a!.sb.dir, a!.sb.env, ['push', '-q', 'origin', `${forged}:${leaseRef(id!)}`]);

  const w = await b!.l.spawn('work', 'origin', '--drain', '--json');
  t.equal(w.code, 0, w.stderr);
  t.same(JSON.parse(w.stdout).claimed, [], 'no worker takes it');
  t.match(
    w.stderr,
    new RegExp(
      `task ${id} is held by a lease no worker can take over \\(its lease runs until 2999-01-01T00:00:00.000Z, past any renewal\\); lazy stop ${id} --force breaks it`,
    ),
  );
  const d = await b!.l.json('doctor');
  t.equal(d.run.code, 6, 'doctor is not healthy');
  t.match(
    d.value.findings.find((f: { code: string }) => f.code === 'pinned_claim'),
    { level: 'error', details: { task: id, remote: 'origin' }, message: new RegExp(`lazy stop ${id} --force`) },
  );
  const stop = await b!.l.json('stop', id!);
  t.equal(stop.run.code, 4, 'a plain stop is refused: the turn runs elsewhere');
  t.match(
    stop.value.error.message,
    /running on machine-1; stop it there, or break its claim with lazy stop \S+ --force/,
  );

  const branch = remoteTip(tm.remote, `refs/heads/lazy/${id}`);
  const forced = await b!.l.json('stop', id!, '--force');
  t.equal(forced.run.code, 0, forced.run.stderr);
  t.equal(forced.value.task.status, 'interrupted');
  t.same(forced.value.broken, { remote: 'origin', lease: forged });
  t.equal(remoteTip(tm.remote, leaseRef(id!)), null, "the remote's lease is deleted");
  t.equal(remoteTip(tm.remote, taskRef(id!)), forced.value.task.tip, 'the interruption is on the remote');
  t.equal(remoteTip(tm.remote, `refs/heads/lazy/${id}`), branch, 'the branch the dead run left is kept');
  const last = forced.value.task.changelog.at(-1);
  t.match(last, {
    trigger: 'stop',
    details: { user_stopped: true, claim_broken: { host: 'machine-1', lease: forged } },
  });
  t.equal((await b!.l.json('doctor')).run.code, 0, 'doctor is healthy again');
  t.equal((await seed!.l('pull')).code, 0);
  t.equal((await seed!.l.json('show', id!)).value.status, 'interrupted', 'every clone sees it');
  // A person sends it back to the fleet: a worker resumes it.
  t.equal((await b!.l('queue', id!)).code, 0);
  t.equal((await b!.l('push')).code, 0);
  const again = await b!.l.spawn('work', 'origin', '--drain', '--json');
  t.equal(again.code, 0, again.stderr);
  t.same(
    JSON.parse(again.stdout).finished.map((f: { detail: string }) => f.detail),
    ['blocked'],
  );
  t.same(refs(tm.remote, 'refs/lazy/leases/'), []);
});

t.test('two clones on one machine under one host name are two places: stop and unblock there refuse', async (t) => {
  const { tm, boxes } = await machines(2, { LAZY_HOST: 'same-box', FAKE_SCENARIO: 'hang' }, 'lazy-oneboxes');
  t.teardown(tm.cleanup);
  const [a, b] = boxes;
  const id = await a!.l.create('long work', '--accept', 'done');
  const s = await a!.l('start', id);
  t.equal(s.code, 0, s.stderr);
  t.equal((await a!.l('push')).code, 0);
  t.equal((await b!.l('pull')).code, 0);
  t.equal((await b!.l.json('show', id)).value.status, 'working');
  for (const args of [
    ['stop', id],
    ['unblock', id, '-m', 'queue this'],
    ['accept', id, '--yes'],
    ['close', id],
  ]) {
    const r = await b!.l.json(...args);
    t.equal(r.run.code, 4, `${args[0]} exits 4`);
    t.match(r.value.error.message, /another clone on same-box/, `${args[0]} names the other clone`);
  }
  t.equal((await b!.l.json('show', id)).value.status, 'working', 'B changed nothing');
  t.equal((await b!.l.json('show', id)).value.turns.length, 1, 'no feedback was queued');
  // A person may still break it from here: said so in words, and pushed.
  const forced = await b!.l('stop', id, '--force');
  t.equal(forced.code, 0, forced.stderr);
  t.match(
    forced.stdout,
    new RegExp(`^${id}: interrupted \\(its claim broken by you; origin held no lease for it; the branch is kept\\)`),
  );
  t.equal(
    remoteTip(tm.remote, taskRef(id)),
    (await b!.l.json('show', id)).value.tip,
    'the interruption is on the remote',
  );
  const stopped = await a!.l.json('stop', id);
  t.equal(stopped.value.task.status, 'interrupted', 'A stops its own turn');
});
