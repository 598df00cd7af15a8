import t, { type Test } from 'tap';
import { chmodSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gitSync } from '../helpers/env.js';
import { team } from '../helpers/team.js';
import { eventually } from '../helpers/agent.js';
import { machine } from '../helpers/fleet-deps.js';
import { TestClock } from '../helpers/clock.js';
import { withClock } from '../../lib/core/clock.js';
import { keepClaim } from '../../lib/fleet/keeper.js';
import { casPush } from '../../lib/fleet/claim/push.js';
import { writeLease } from '../../lib/fleet/lease.js';
import { readClaim, saveClaim, saveLease } from '../../lib/fleet/claims.js';
import type { Unkept } from '../../lib/agents/supervisor/supervisor.js';
import { leaseRef } from '../../lib/core/names.js';

// The supervisor's hold on its claim (lib/fleet/keeper.ts), on a clock the test moves: it renews the
// lease once a third of it has passed; a refused renewal is a lost claim; a lease it cannot renew for two
// thirds of its length stops the agent before anyone could take the task over (issue 27).

const LEASE = 9000;
const TASK = 'kkkk0001';
const RUN = 'rrrr0001';
const iso = (ms: number) => new Date(ms).toISOString();

async function held(t: Test) {
  const tm = team(1, 'lazy-keeper');
  t.teardown(tm.cleanup);
  const sb = tm.clones[0]!;
  const m = await machine(sb, LEASE);
  t.teardown(() => m.close());
  const clock = new TestClock();
  clock.pause();
  const deps = { ...m.deps, now: () => clock.now() };
  const until = iso(clock.now() + LEASE);
  const doc = { task: TASK, run: RUN, host: 'box', until, renewed_at: iso(clock.now()) };
  const lease = await m.as(async () => writeLease(deps.repo, doc, null, await deps.store.person()));
  t.ok((await m.as(() => casPush(deps.repo, 'origin', [{ ref: leaseRef(TASK), next: lease, expected: null }]))).ok);
  const claim = { task: TASK, run: RUN, remote: 'origin', host: 'box', lease, until, lease_ms: LEASE };
  saveClaim(deps.repo.lazyDir, { ...claim, task_tip: 'a'.repeat(40), branch_tip: null });
  saveLease(deps.repo.lazyDir, TASK, { run: RUN, lease, until });
  const unkept: Unkept[] = [];
  const keep = () =>
    withClock(clock, () =>
      m.as(async () =>
        keepClaim(
          deps,
          TASK,
          RUN,
          async (u) => void unkept.push(u),
          () => {},
        ),
      ),
    );
  const remoteLease = () => gitSync(tm.remote, process.env, ['rev-parse', leaseRef(TASK)]).trim();
  return { tm, m, deps, clock, lease, unkept, keep, remoteLease };
}

t.test('renews at a third of the lease, and only then', async (t) => {
  const h = await held(t);
  const k = await h.keep();
  await eventually(() => h.clock.sleeping() > 0, 10_000, 'the keeper to wait for its renewal');
  t.equal(h.remoteLease(), h.lease, 'not before a third has passed');
  h.clock.advance(LEASE / 3 + 1);
  await eventually(() => readClaim(h.deps.repo.lazyDir, TASK)!.lease !== h.lease, 20_000, 'the renewal');
  const c = readClaim(h.deps.repo.lazyDir, TASK)!;
  t.equal(c.lease, h.remoteLease(), 'the claim on disk names the lease the remote holds');
  t.equal(Date.parse(c.until!), h.clock.now() + LEASE, 'a whole lease from now');
  await k.end();
  t.same(h.unkept, [], 'nothing stopped');
});

t.test('a renewal the remote refuses: the claim is lost, and the agent is stopped', async (t) => {
  const h = await held(t);
  // Another worker took the task over: the remote's lease is no longer the one this claim last pushed.
  const other = await h.m.as(async () =>
    writeLease(
      h.deps.repo,
      { task: TASK, run: 'rrrr0002', host: 'other', until: iso(h.clock.now() + LEASE), renewed_at: iso(h.clock.now()) },
      h.lease,
      await h.deps.store.person(),
    ),
  );
  t.ok(
    (await h.m.as(() => casPush(h.deps.repo, 'origin', [{ ref: leaseRef(TASK), next: other, expected: h.lease }]))).ok,
  );
  const k = await h.keep();
  await eventually(() => h.clock.sleeping() > 0, 10_000, 'the keeper to wait');
  h.clock.advance(LEASE / 3 + 1);
  await eventually(() => h.unkept.length > 0, 20_000, 'the keeper to give up');
  await k.end();
  t.same(h.unkept, [{ reason: 'another worker took the task over', lost: true, graceMs: LEASE / 6 }]);
  t.equal(h.remoteLease(), other, "the other worker's lease stands");
});

t.test('a remote it cannot reach: the agent is stopped a third of a lease before it could be taken over', async (t) => {
  const h = await held(t);
  renameSync(h.tm.remote, `${h.tm.remote}.gone`);
  t.teardown(() => renameSync(`${h.tm.remote}.gone`, h.tm.remote));
  const k = await h.keep();
  await eventually(() => h.clock.sleeping() > 0, 10_000, 'the keeper to wait');
  h.clock.advance(LEASE / 3 + 1);
  // It keeps trying (a short pause between tries) until two thirds of the lease have passed.
  await eventually(() => h.clock.sleeping() > 0, 20_000, 'a retry to wait');
  t.same(h.unkept, [], 'still trying at a third');
  h.clock.advance(LEASE / 3);
  await eventually(() => h.unkept.length > 0, 20_000, 'the keeper to stop the agent');
  await k.end();
  t.equal(h.unkept.length, 1);
  t.match(h.unkept[0], { lost: false, reason: /could not be renewed in time/ });
  t.ok(h.clock.now() < Date.parse(readClaim(h.deps.repo.lazyDir, TASK)!.until!), 'before the lease ran out');
});

t.test('a renewal push that hangs does not outlast the deadline: the agent is stopped on time', async (t) => {
  const h = await held(t);
  // The remote takes the push and then says nothing (a hook that waits for the test's gate).
  const gate = join(h.tm.root, 'gate');
  const hook = join(h.tm.remote, 'hooks', 'pre-receive');
  writeFileSync(hook, `#!/bin/sh\nwhile [ ! -e "${gate}" ]; do sleep 0.05; done\n`);
  chmodSync(hook, 0o755);
  t.teardown(() => writeFileSync(gate, ''));
  const k = await h.keep();
  await eventually(() => h.clock.sleeping() > 0, 10_000, 'the keeper to wait');
  h.clock.advance(LEASE / 3 + 1);
  await eventually(() => h.clock.sleeping() > 0, 20_000, 'the renewal to be under way, its deadline set');
  t.same(h.unkept, [], 'not yet');
  h.clock.advance(LEASE / 3);
  await eventually(() => h.unkept.length > 0, 20_000, 'the keeper to stop the agent while the push hangs');
  t.match(h.unkept[0], { lost: false, reason: /could not be renewed in time/ });
  writeFileSync(gate, '');
  await k.end();
});

t.test("a renewal that landed unacknowledged is still this run's: adopted, not a lost claim", async (t) => {
  const h = await held(t);
  // A renewal pushed (its object written here) whose answer never came: the claim on disk still names the old lease.
  const landed = await h.m.as(async () =>
    writeLease(
      h.deps.repo,
      { task: TASK, run: RUN, host: 'box', until: iso(h.clock.now() + LEASE), renewed_at: iso(h.clock.now()) },
      h.lease,
      await h.deps.store.person(),
    ),
  );
  t.ok(
    (await h.m.as(() => casPush(h.deps.repo, 'origin', [{ ref: leaseRef(TASK), next: landed, expected: h.lease }]))).ok,
  );
  const k = await h.keep();
  await eventually(() => h.clock.sleeping() > 0, 10_000, 'the keeper to wait');
  h.clock.advance(LEASE / 3 + 1);
  await eventually(() => readClaim(h.deps.repo.lazyDir, TASK)!.lease === landed, 20_000, 'the landed lease adopted');
  t.same(h.unkept, [], 'not taken for a lost claim');
  // Time runs again: the keeper's short pause before it tries again passes, two seconds before its deadline.
  h.clock.resume();
  await eventually(
    () => ![h.lease, landed].includes(h.remoteLease()),
    20_000,
    'a renewal on top of the one that landed',
  );
  await k.end();
  t.same(h.unkept, [], 'the claim was kept');
  t.equal(
    readClaim(h.deps.repo.lazyDir, TASK)!.lease,
    h.remoteLease(),
    'and the claim names the lease the remote holds',
  );
});
