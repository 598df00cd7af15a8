import t from 'tap';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { cli, gitSync, type Sandbox } from '../helpers/env.js';
import { team, withFakeAgent } from '../helpers/team.js';
import { eventually, readJson, runDirOf } from '../helpers/agent.js';
import { queueTasks } from '../helpers/fleet.js';
import { machine } from '../helpers/fleet-deps.js';
import { claimTask } from '../../lib/fleet/claim/index.js';
import { endAbandoned, release, renew } from '../../lib/fleet/running.js';
import { listClaims } from '../../lib/fleet/claims.js';
import { branchRef, taskRef } from '../../lib/core/names.js';

// A claim's life after the claim push: renewals move the lease forward; a claim whose run this
// clone lost (its run files gone) ends as a crash, and the release pushes that outcome and
// deletes the lease, so no claim is ever left without an owner.

const remoteRef = (remote: string, ref: string) => {
  try {
    return gitSync(remote, process.env, ['rev-parse', '--verify', '-q', ref]).trim();
  } catch {
    return null;
  }
};

t.test('renew, then a claim whose run is gone ends as a crash and is released', async (t) => {
  const tm = team(2, 'lazy-running');
  t.teardown(tm.cleanup);
  const boxes: Sandbox[] = tm.clones.map((c, i) => ({ ...c, env: { ...c.env, LAZY_HOST: `machine-${i}` } }));
  for (const b of boxes) await withFakeAgent(b);
  const l = cli(boxes[0]!);
  const id = await l.create('a claim that loses its run', '--accept', 'done');
  await queueTasks(boxes[0]!, [id]);
  t.equal((await l('push')).code, 0);
  const m = await machine({ ...boxes[1]!, env: { ...boxes[1]!.env, FAKE_SCENARIO: 'hang' } });
  t.teardown(() => m.close());
  const tips = await m.pull();
  const seen = { task: tips.get(taskRef(id)) ?? null, branch: tips.get(branchRef(id)) ?? null };
  const r = await m.as(() => claimTask(m.deps, { id, kind: 'start', lease: null }, seen, undefined));
  if (r.kind !== 'claimed') throw new Error(`not claimed: ${r.kind}`);
  const c = r.claim;
  t.same(listClaims(m.deps.repo.lazyDir), [c], 'the claim is kept on disk');

  const first = c.lease;
  t.equal(await m.as(() => renew(m.deps, c)), 'renewed');
  t.not(c.lease, first, 'a new lease');
  t.equal(remoteRef(tm.remote, `refs/lazy/leases/${id}`), c.lease, 'on the remote');

  // The run is gone here (its processes killed, its files removed): nothing will ever record its outcome.
  const dir = runDirOf(boxes[1]!, c.run);
  await eventually(() => readJson(join(dir, 'run.json')).supervisor, 60_000, 'the supervisor to start');
  const agent = await eventually(
    () => {
      try {
        return readJson(join(dir, 'agent.json')).pid as number;
      } catch {
        return undefined;
      }
    },
    60_000,
    'the agent to start',
  );
  for (const pid of [readJson(join(dir, 'run.json')).supervisor.pid, -agent]) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
  rmSync(dir, { recursive: true, force: true });
  t.equal(await m.as(() => endAbandoned(m.deps, c)), true, 'the run is gone: ended');
  t.equal((await m.deps.store.view(id)).status, 'interrupted', 'as a crash, here');
  const out = await m.as(() => release(m.deps, c));
  t.equal(out.kind, 'released');
  t.equal(remoteRef(tm.remote, `refs/lazy/leases/${id}`), null, 'the lease is deleted');
  t.equal(remoteRef(tm.remote, taskRef(id)), (await m.deps.store.view(id)).tip, 'the outcome is on the remote');
  t.same(listClaims(m.deps.repo.lazyDir), [], 'and the claim is gone from disk');
});
