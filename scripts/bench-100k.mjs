// The 100,000-task rows (BENCH_ONLY=100k runs them alone; BENCH_100K sets the count): lazy list
// against a floor of `node -e 0` plus `git for-each-ref refs/lazy`, the two measured in turn
// so a slow spell of the shared machine weighs on both alike.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { LAZY, lazy, log, row, seededRepo, sh, timed, work } from './bench-lib.mjs';

const N = Number(process.env.BENCH_100K ?? 100000);
const REPS = Number(process.env.BENCH_100K_REPS ?? 7);
const mid = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function floor(dir) {
  return (
    timed(process.execPath, ['-e', '0'], dir) +
    timed('git', ['for-each-ref', '--format=%(objectname) %(refname)', 'refs/lazy'], dir)
  );
}

/** Medians of `what` and of the floor, each rep running `before` (untimed), then the floor, then `what`. */
function paired(dir, args, before = () => {}) {
  const f = [];
  const m = [];
  for (let i = 0; i < REPS; i++) {
    before(i);
    f.push(floor(dir));
    m.push(timed(process.execPath, [LAZY, ...args], dir));
  }
  return { ms: mid(m), floor: mid(f) };
}

export async function bench100k() {
  const dir = seededRepo(`repo-${N}`, N);
  const FLOOR = 'node -e 0 + git for-each-ref';
  const k = `${Math.round(N / 1000)}k`;
  // The first list of a clone that has no index yet (a fresh clone): it reads every task.
  const builds = [];
  const buildFloors = [];
  for (let i = 0; i < Math.min(REPS, 3); i++) {
    rmSync(join(dir, '.git', 'lazy'), { recursive: true, force: true });
    buildFloors.push(floor(dir));
    builds.push(timed(process.execPath, [LAZY, 'list'], dir));
  }
  row(`lazy list, first in a clone: builds the index (${k} tasks)`, mid(builds), FLOOR, mid(buildFloors), '≤ 3 s');
  let r = paired(dir, ['list']);
  row(`lazy list, index built (${k} tasks)`, r.ms, FLOOR, r.floor, '≤ 2.0');
  const id = lazy(['list', '--limit', '1', '--json'], dir).match(/"id": "([0-9a-z]{8})"/)[1];
  r = paired(dir, ['list'], (i) => lazy(['comment', id, '-m', `bench ${i}`], dir));
  row(`lazy list right after one comment (${k} tasks)`, r.ms, FLOOR, r.floor, '≤ 2.0');
  r = paired(dir, ['list', '--status', 'working']);
  row(`lazy list --status working (${k} tasks, none working)`, r.ms, FLOOR, r.floor, '');
  r = paired(dir, ['list', '--limit', '50']);
  row(`lazy list --limit 50 (${k} tasks)`, r.ms, FLOOR, r.floor, '');
  await benchArchive(k);
}

const FETCH = ['fetch', '-q', '--no-tags', 'origin', '+refs/lazy/*:refs/remotes/origin/lazy/*'];

/**
 * The archive (live refs ≈ open tasks): 99% of the tasks finished 60 days ago and archived, pushed by plain git to a
 * local bare remote. Rows: the refs the remote advertises under refs/lazy (the count stands in the ms column, against
 * 2,000), a fresh clone's first lazy pull against git fetch of the same remote, a no-op pull against a no-op fetch;
 * each pair measured in turn (fetch, then pull) on the shared machine, medians.
 */
export async function benchArchive(k) {
  const done = Math.round(N * 0.99);
  const dir = join(work, `archive-${N}`);
  sh('git', ['init', '-q', '-b', 'main', dir], work);
  sh('git', ['commit', '-q', '--allow-empty', '-m', 'init'], dir);
  log(`seeding ${N} tasks, ${done} finished 60 days ago, and archiving them`);
  lazy(['__bench-seed', String(N), '--complete', String(done), '--days-ago', '60'], dir);
  const t0 = performance.now();
  lazy(['archive'], dir);
  log(
    `lazy archive of ${done} tasks: ${Math.round(performance.now() - t0)} ms (index built cold, then one transaction)`,
  );
  const remote = join(work, `archive-${N}.git`);
  sh('git', ['init', '-q', '--bare', remote], work);
  sh('git', ['push', '-q', remote, 'refs/lazy/*:refs/lazy/*', 'main:main'], dir);
  const advertised = sh('git', ['ls-remote', remote, 'refs/lazy/*'], work).split('\n').filter(Boolean).length;
  row(
    `refs under refs/lazy the remote advertises (${k} tasks, ${done} archived; count, not ms)`,
    advertised,
    'refs',
    2000,
    '≤ 1.0',
  );
  const clone = (name) => {
    const d = join(work, name);
    sh('git', ['clone', '-q', remote, d], work);
    return d;
  };
  const reps = Math.min(REPS, 3);
  const pulls = [];
  const fetches = [];
  let last;
  for (let i = 0; i < reps; i++) {
    fetches.push(timed('git', FETCH, clone(`archive-fetch-${i}`)));
    last = clone(`archive-pull-${i}`);
    pulls.push(timed(process.execPath, [LAZY, 'pull'], last));
  }
  row(
    `lazy pull, first in a fresh clone (${k} tasks, ${done} archived)`,
    mid(pulls),
    'git fetch of the same remote',
    mid(fetches),
    '≤ 1.2',
  );
  const noopPulls = [];
  const noopFetches = [];
  for (let i = 0; i < REPS; i++) {
    noopFetches.push(timed('git', FETCH, last));
    noopPulls.push(timed(process.execPath, [LAZY, 'pull'], last));
  }
  row(
    `lazy pull with nothing to do (${k} tasks, ${done} archived)`,
    mid(noopPulls),
    'git fetch (no-op)',
    mid(noopFetches),
    '≤ 1.2',
  );
}
