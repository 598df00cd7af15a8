import t from 'tap';
import { cli, gitSync } from '../helpers/env.js';
import { team, withFakeAgent } from '../helpers/team.js';
import { seeded } from '../helpers/seed.js';
import { supervisorsSettle } from '../helpers/supervise.js';

// Seeded random interleavings of create, comment, start, unblock, close, reopen and sync
// on three clones of one bare remote. However the operations interleave, after a final
// round of syncs every clone holds the same task state, with every turn and status
// entry any clone ever wrote.

const { seed, rand, pick, replay } = seeded('SYNC_SEED');
const OPS = Number(process.env.SYNC_OPS ?? 40);

/**
 * A sync whose only undelivered refs are work branches two machines both advanced (each ran a
 * turn of the same task before they synced): a real divergence, reported (exit 5), never overwritten.
 */
function onlyDiverged(r: { run: { code: number }; value: any }): boolean {
  const b = r.value?.push?.branches;
  return (
    r.run.code === 5 &&
    r.value.push.rejected.length === 0 &&
    b.diverged.length > 0 &&
    [b.lease_failed, b.refused, b.skipped].every((x: unknown[]) => x.length === 0)
  );
}

t.test(`random interleavings converge (seed ${seed})`, async (t) => {
  t.comment(`sync seed ${seed}; rerun with ${replay}`);
  const tm = team(3, 'lazy-random');
  t.teardown(tm.cleanup);
  await Promise.all(tm.clones.map(withFakeAgent));
  const clones = tm.clones.map((c, i) => ({ l: cli(c, { LAZY_HOST: `machine-${i}` }), sb: c, host: `machine-${i}` }));
  const known = clones.map(() => new Set<string>());
  const codes: Record<string, number> = {};

  for (let i = 0; i < OPS; i++) {
    const k = Math.floor(rand() * clones.length);
    const { l } = clones[k]!;
    const ids = [...known[k]!];
    const r = rand();
    let op: string[];
    if (r < 0.15 || ids.length === 0) op = ['create', `task ${i} from ${k}`, '--accept', 'done'];
    else if (r < 0.33) op = ['comment', pick(ids), '-m', `comment ${i} from ${k}`];
    else if (r < 0.48) op = ['start', pick(ids)];
    else if (r < 0.6) op = ['unblock', pick(ids), '-m', `feedback ${i} from ${k}`];
    else if (r < 0.7) op = ['close', pick(ids), '-m', `close ${i}`];
    else if (r < 0.78) op = ['reopen', pick(ids)];
    else op = ['sync'];
    const res = await l.json(...op);
    const key = `${op[0]}:${res.run.code}`;
    codes[key] = (codes[key] ?? 0) + 1;
    t.ok(
      res.run.code === 0 || res.run.code === 4 || (op[0] === 'sync' && onlyDiverged(res)),
      `op ${i} on clone ${k}: lazy ${op.slice(0, 2).join(' ')} → ${res.run.code}`,
    );
    if (op[0] === 'create' && res.run.code === 0) known[k]!.add(res.value.task.id);
    if (op[0] === 'sync') for (const x of (await l.json('list', '--all')).value) known[k]!.add(x.id);
  }
  t.comment(`outcomes: ${JSON.stringify(codes)}`);

  // Let every turn finish, then collect every entry any clone wrote. The turns' supervisors run in this
  // process: wait for them, not for each clone's `working` tasks (one another clone runs never ends here,
  // so a wait on it could only time out). Clones and tasks are independent: reads run side by side.
  t.ok(await supervisorsSettle(tm.root, 120_000), 'every turn ended');
  const each = <T>(xs: T[], f: (x: T) => Promise<unknown>) => Promise.all(xs.map(f));
  const entries = new Set<string>();
  await each(clones, async ({ l }) =>
    each((await l.json('list', '--all')).value, async (x: any) => {
      const v = (await l.json('show', x.id)).value;
      for (const e of [...v.turns, ...v.changelog]) entries.add(`${x.id}/${e.id}`);
    }),
  );

  // Task state always converges; a work branch two machines both advanced stays diverged (onlyDiverged).
  const diverged = new Set<string>();
  for (let round = 0; round < 3; round++)
    for (const { l } of clones) {
      const r = await l.json('sync');
      t.ok(r.run.code === 0 || onlyDiverged(r), `final sync round ${round} → ${r.run.code}`);
      for (const d of r.value.push?.branches?.diverged ?? []) diverged.add(d.id);
    }

  const states = await Promise.all(
    clones.map(async ({ l, sb }) => {
      const refs = gitSync(sb.dir, sb.env, [
        'for-each-ref',
        '--format=%(refname) %(objectname)',
        'refs/lazy/tasks/',
      ]).trim();
      const tasks = await Promise.all(
        (await l.json('list', '--all')).value.map(async (x: any) => {
          const v = (await l.json('show', x.id)).value;
          return {
            id: v.id,
            status: v.status,
            goal: v.goal,
            turns: v.turns.map((e: any) => [e.id, e.sequence, e.content]),
            changelog: v.changelog.map((e: any) => [e.id, e.status, e.set_aside]),
          };
        }),
      );
      return { refs, tasks };
    }),
  );
  t.ok(states[0]!.tasks.length > 0, `${states[0]!.tasks.length} tasks`);
  for (let i = 1; i < states.length; i++) {
    t.equal(states[i]!.refs, states[0]!.refs, `clone ${i} holds the same task refs as clone 0`);
    t.same(states[i]!.tasks, states[0]!.tasks, `clone ${i} derives the same state as clone 0`);
  }
  for (const id of diverged) {
    const v = (await clones[0]!.l.json('show', id)).value;
    const hosts = new Set(v.changelog.filter((c: any) => c.status === 'working').map((c: any) => c.host));
    t.ok(hosts.size >= 2, `branch lazy/${id} diverged only because ${[...hosts].join(' and ')} both worked on it`);
  }
  const present = new Set(
    states[0]!.tasks.flatMap((x: any) => [...x.turns, ...x.changelog].map((e: any) => `${x.id}/${e[0]}`)),
  );
  const missing = [...entries].filter((e) => !present.has(e));
  t.same(missing, [], `every one of ${entries.size} entries written anywhere is present everywhere`);
  for (const d of await Promise.all(clones.map(({ l }) => l('doctor')))) {
    t.equal(
      d.code,
      0,
      `every clone passes doctor ${d.stdout
        .split('\n')
        .filter((x) => x.startsWith('error'))
        .join('; ')}`,
    );
  }
});
