import t from 'tap';
import { join } from 'node:path';
import { sandbox, cli, gitSync, ROOT } from './helpers/env.js';

const WRITER = join(ROOT, 'test', 'fixtures', 'writer.cjs');
import { openRepo } from '../lib/core/repo.js';
import { Store } from '../lib/store/store.js';
import { background } from './helpers/procs.js';

// Real parallel processes racing on one task ref.

const WRITERS = 8;
const EACH = 50;

t.test(`${WRITERS} concurrent writer processes × ${EACH} mutations lose nothing`, async (t) => {
  const sb = sandbox();
  t.teardown(sb.cleanup);
  const l = cli(sb);
  const id = await l.create('contended');
  // Each writer is its own process running the built CLI's main() EACH times.
  const results = await Promise.all(
    Array.from(
      { length: WRITERS },
      (_, w) =>
        new Promise<{ code: number; stderr: string }>((res) => {
          const c = background(process.execPath, [WRITER, id, `w${w}`, String(EACH)], {
            cwd: sb.dir,
            env: sb.env,
            stdio: ['ignore', 'ignore', 'pipe'],
          });
          let stderr = '';
          c.stderr.on('data', (d) => (stderr += d));
          c.on('close', (code) => res({ code: code ?? -1, stderr }));
        }),
    ),
  );
  for (const r of results) {
    t.equal(r.stderr, '', 'every mutation succeeded');
    t.equal(r.code, 0);
  }
  const v = (await l.json('show', id)).value;
  const contents = v.turns.map((x: any) => x.content).sort();
  const expected = Array.from({ length: WRITERS }, (_, w) => Array.from({ length: EACH }, (_, i) => `w${w}-${i + 1}`))
    .flat()
    .sort();
  t.equal(v.turns.length, WRITERS * EACH, 'no lost entries');
  t.same(contents, expected, 'every entry is present exactly once');
  t.same(
    v.turns.map((x: any) => x.sequence),
    Array.from({ length: WRITERS * EACH }, (_, i) => i + 1),
  );
  const commits = gitSync(sb.dir, sb.env, ['rev-list', '--count', `refs/lazy/tasks/${id}`]).trim();
  t.equal(Number(commits), WRITERS * EACH + 1, 'one commit per mutation, in one linear history');
  const merges = gitSync(sb.dir, sb.env, ['rev-list', '--merges', '--count', `refs/lazy/tasks/${id}`]).trim();
  t.equal(merges, '0');
  t.equal((await l('doctor')).code, 0);
});

t.test('a writer that loses the compare-and-swap re-reads and re-applies', async (t) => {
  const sb = sandbox();
  t.teardown(sb.cleanup);
  const id = await cli(sb).create('race');
  process.env.GIT_AUTHOR_NAME = 'Ada Lovelace';
  process.env.GIT_AUTHOR_EMAIL = 'ada@example.com';
  const repo = await openRepo(sb.dir);
  const a = new Store(repo, 'human');
  const b = new Store(repo, 'human');
  t.teardown(() => {
    a.close();
    b.close();
  });
  let plans = 0;
  await a.mutate(id, 'comment', async (d) => {
    plans++;
    // While A holds its plan, B moves the ref underneath it (bypassing the lock, as
    // a process on a shared checkout could); A's compare-and-swap must fail.
    if (plans === 1)
      await b.mutateUnlocked(id, 'comment', (d2) => {
        d2.turn({ role: 'human', kind: 'comment', content: 'from B' });
      });
    d.turn({ role: 'human', kind: 'comment', content: 'from A' });
  });
  t.equal(plans, 2, 'A planned twice: once on the stale tip, once after re-reading');
  const v = await a.view(id);
  t.same(
    v.turns.map((x) => x.content),
    ['from B', 'from A'],
    'neither update was lost',
  );
});

t.test('a re-applied operation that is no longer allowed fails with exit 4', async (t) => {
  const sb = sandbox();
  t.teardown(sb.cleanup);
  const id = await cli(sb).create('race');
  const repo = await openRepo(sb.dir);
  const a = new Store(repo, 'human');
  const b = new Store(repo, 'human');
  t.teardown(() => {
    a.close();
    b.close();
  });
  let plans = 0;
  const err = await a
    .mutate(id, 'close', async (d) => {
      plans++;
      if (plans === 1)
        await b.mutateUnlocked(id, 'close', (d2) => {
          d2.transition('abandoned', 'close', 'closed by B');
        });
      d.transition('abandoned', 'close', 'closed by A');
    })
    .catch((e) => e);
  t.equal(err.exitCode, 4);
  t.equal(err.details.status, 'abandoned');
  const v = await a.view(id);
  t.same(
    v.changelog.map((c) => c.reason),
    ['created', 'closed by B'],
  );
});
