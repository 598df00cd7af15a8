import t from 'tap';
import { cli, gitSync, type Sandbox } from '../helpers/env.js';
import { team, withFakeAgent } from '../helpers/team.js';
import { eventually } from '../helpers/agent.js';
import { queueTasks, runsPerTask } from '../helpers/fleet.js';
import { machine, type Machine } from '../helpers/fleet-deps.js';
import { join } from 'node:path';
import { claimTask, type ClaimResult } from '../../lib/fleet/claim/index.js';
import { seeded } from '../helpers/seed.js';
import { branchRef, taskRef } from '../../lib/core/names.js';

// Claims race on the remote's compare-and-swap: two clones claim the same task at (seeded)
// random moments; exactly one wins, and the loser's claim commit is undone and never runs.

const { seed, rand, replay } = seeded('CLAIM_SEED');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function clones(n: number) {
  const tm = team(n, 'lazy-claim');
  const boxes: { sb: Sandbox; log: string }[] = tm.clones.map((c, i) => {
    const log = join(c.home, 'agent-log.jsonl');
    return { sb: { ...c, env: { ...c.env, LAZY_HOST: `machine-${i}`, FAKE_LOG: log } }, log };
  });
  for (const b of boxes) await withFakeAgent(b.sb);
  return { tm, boxes };
}

async function claimNow(m: Machine, id: string, delayMs: number, tips: Map<string, string>): Promise<ClaimResult> {
  await sleep(delayMs);
  const seen = { task: tips.get(taskRef(id)) ?? null, branch: tips.get(branchRef(id)) ?? null };
  return m.as(() => claimTask(m.deps, { id, kind: 'start', lease: null }, seen, undefined));
}

t.test(`two clones claim the same tasks at random moments: exactly one wins each (seed ${seed})`, async (t) => {
  t.comment(`claim seed ${seed}; rerun with ${replay}`);
  const { tm, boxes } = await clones(3);
  t.teardown(tm.cleanup);
  const [seedBox, ...racers] = boxes;
  const l = cli(seedBox!.sb);
  const ids: string[] = [];
  for (let i = 0; i < 4; i++) ids.push(await l.create(`race ${i}`, '--accept', 'done'));
  await queueTasks(seedBox!.sb, ids);
  t.equal((await l('push')).code, 0);
  const machines = await Promise.all(racers.map((r) => machine(r.sb)));
  t.teardown(() => machines.forEach((m) => m.close()));
  for (const id of ids) {
    const tips = await Promise.all(machines.map((m) => m.pull()));
    const before = await Promise.all(machines.map((m) => m.deps.store.view(id)));
    const results = await Promise.all(machines.map((m, i) => claimNow(m, id, Math.floor(rand() * 40), tips[i]!)));
    const kinds = results.map((r) => r.kind).sort();
    t.same(kinds, ['claimed', 'lost_race'], `${id}: one claim won, one lost (${kinds})`);
    const loser = results.findIndex((r) => r.kind === 'lost_race');
    const winner = 1 - loser;
    t.equal((await machines[loser]!.deps.store.view(id)).tip, before[loser]!.tip, "the loser's claim commit is undone");
    const won = results[winner] as Extract<ClaimResult, { kind: 'claimed' }>;
    t.equal(
      gitSync(tm.remote, process.env, ['rev-parse', taskRef(id)]).trim(),
      won.claim.task_tip,
      "the winner's claim is on the remote",
    );
    t.ok(gitSync(tm.remote, process.env, ['rev-parse', `refs/lazy/leases/${id}`]).trim(), 'with its lease');
    // The winner's turn ends (the fake agent succeeds) before the next round.
    const w = machines[winner]!;
    await eventually(async () => (await w.deps.store.view(id)).status === 'blocked', 60_000, `${id} to finish`);
  }
  const runs = runsPerTask(racers.map((r) => r.log));
  t.same([...runs.keys()].sort(), [...ids].sort(), 'every task ran');
  t.ok(
    [...runs.values()].every((n) => n === 1),
    'each exactly once: no loser ever started its agent',
  );
});
