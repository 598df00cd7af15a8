// The 100,000-task rows (BENCH_ONLY=100k runs them alone; BENCH_100K sets the count): lazy list
// against a floor of `node -e 0` plus `git for-each-ref refs/lazy`, the two measured in turn
// so a slow spell of the shared machine weighs on both alike.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { LAZY, lazy, row, seededRepo, timed } from './bench-lib.mjs';

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
}
