import t from 'tap';
import { join } from 'node:path';
import { cli, gitSync, type Sandbox } from '../helpers/env.js';
import { team, withFakeAgent } from '../helpers/team.js';
import { queueTasks, runsPerTask } from '../helpers/fleet.js';

// lazy work as a real process: N workers on N clones of one bare remote drain a queue, each
// task run exactly once; a worker SIGKILLed mid-turn loses its task to another after its lease.

const refs = (dir: string, pattern: string) =>
  gitSync(dir, process.env, ['for-each-ref', '--format=%(refname)', pattern]).trim().split('\n').filter(Boolean);

async function machines(n: number, extra: NodeJS.ProcessEnv = {}) {
  const tm = team(n);
  const boxes = tm.clones.map((c, i) => {
    const env = {
      ...c.env,
      LAZY_HOST: `machine-${i}`,
      FAKE_LOG: join(c.home, 'agent-log.jsonl'),
      LAZY_WORK_POLL_MS: '300',
      ...extra,
    };
    return { sb: { ...c, env } as Sandbox, l: cli({ ...c, env }), log: env.FAKE_LOG };
  });
  for (const b of boxes) await withFakeAgent(b.sb);
  return { tm, boxes };
}

t.test(
  '4 workers drain 20 queued tasks: each runs exactly once, every outcome and branch reaches the remote',
  async (t) => {
    const { tm, boxes } = await machines(5, { FAKE_SCENARIO: 'slow-succeed', FAKE_SLEEP_MS: '200' });
    t.teardown(tm.cleanup);
    const [seed, ...workers] = boxes;
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) ids.push(await seed!.l.create(`task ${i}`, '--accept', 'done'));
    await queueTasks(seed!.sb, ids);
    t.equal((await seed!.l('push')).code, 0);
    const runs = await Promise.all(workers.map((w) => w.l.spawn('work', 'origin', '--drain', '--json')));
    for (const r of runs) t.equal(r.code, 0, `a worker exits 0 when drained: ${r.stdout.slice(0, 600)}`);
    const summaries = runs.map((r) => JSON.parse(r.stdout));
    const finished = summaries.flatMap((s) => s.finished.map((f: { task: string }) => f.task));
    t.same([...finished].sort(), [...ids].sort(), 'every task finished once, across the workers');
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
      'a separate clone sees all 20 under review',
    );
  },
);
