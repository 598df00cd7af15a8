import t from 'tap';
import { join } from 'node:path';
import { sandbox, cli, gitSync, ROOT } from '../helpers/env.js';
import { background } from '../helpers/procs.js';

// Real parallel processes racing on one task ref.

const WRITER = join(ROOT, 'test', 'fixtures', 'writer.cjs');
const WRITERS = 8;
// Each writer's mutations after its first all meet the other seven on the task's lock and ref: 25 each make 200
// lock handoffs and compare-and-swaps under contention (50 each cost twice the time and proved no more).
const EACH = 25;

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
            // The claim is that nothing is lost; how long a writer may wait is the lock's own test. Under
            // load, with seven others contending, one writer can wait out the default 15 s (seen here).
            env: { ...sb.env, LAZY_LOCK_TIMEOUT_MS: '120000' },
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
