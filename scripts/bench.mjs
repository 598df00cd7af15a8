// npm run bench: median wall times of whole lazy processes, each as a ratio against a
// floor measured in the same run on the same machine. A benchmark, not a test: it prints
// a table (and writes bench-results.json) and never fails on a slow machine.
import { rmSync, writeFileSync, readdirSync, readFileSync, cpSync } from 'node:fs';
import { join } from 'node:path';
import { LAZY, REPS, lazy, log, median, root, row, rows, sh, timed, work } from './bench-lib.mjs';
import { seededRepo as seeded } from './bench-lib.mjs';
import { fleetBench } from './bench-fleet.mjs';
import { mcpBench } from './bench-mcp.mjs';
import { bench100k } from './bench-100k.mjs';
import { uiBench } from './bench-ui.mjs';

const SIZES = (process.env.BENCH_SIZES ?? '1000,10000').split(',').map(Number);
// BENCH_ONLY=store (the 1,000 and 10,000 rows and sync), fleet, mcp, ui or 100k runs those rows alone.
const ONLY = process.env.BENCH_ONLY;

function seededRepo(n) {
  const dir = seeded(`repo-${n}`, n);
  lazy(['list'], dir); // builds the listing index once, as any first list does
  return dir;
}

const node0 = () => median(() => timed(process.execPath, ['-e', '0'], work));

try {
  if (!ONLY || ONLY === 'store') await storeAndSync();
  if (!ONLY || ONLY === 'mcp') await mcpBench();
  if (!ONLY || ONLY === 'ui') await uiBench();
  if (!ONLY || ONLY === 'fleet') await fleetBench();
  if (!ONLY || ONLY === '100k') await bench100k();
} finally {
  rmSync(work, { recursive: true, force: true });
}

async function storeAndSync() {
  let big;
  for (const n of SIZES) {
    const dir = seededRepo(n);
    big = { n, dir };
    const id = lazy(['list', '--json'], dir).match(/"id": "([0-9a-z]{8})"/)[1];
    const nodeMs = node0();
    const ferMs = median(() => timed('git', ['for-each-ref', '--format=%(objectname) %(refname)', 'refs/lazy'], dir));
    const listMs = median(() => timed(process.execPath, [LAZY, 'list'], dir));
    row(`lazy list (${n} tasks)`, listMs, 'node -e 0 + git for-each-ref', nodeMs + ferMs, '≤ 2');
    // Answered before the bundle loads (bin/lazy.cjs): what a command costs beyond node's own start.
    if (n === SIZES[0])
      row(
        'lazy --version',
        median(() => timed(process.execPath, [LAZY, '--version'], dir)),
        'node -e 0',
        nodeMs,
        '≤ 1.3',
      );
    // The seeder gives every other task one agent turn's usage: usage sums them from the listing index.
    row(
      `lazy usage (${n} tasks, ${n / 2} turns)`,
      median(() => timed(process.execPath, [LAZY, 'usage'], dir)),
      'lazy list',
      listMs,
      n >= 10000 ? '≤ 2' : '',
    );
    row(
      `lazy show (${n} tasks)`,
      median(() => timed(process.execPath, [LAZY, 'show', id], dir)),
      'node -e 0',
      nodeMs,
      '≤ 2',
    );
    row(
      `lazy create (${n} tasks)`,
      median((i) => timed(process.execPath, [LAZY, 'create', `bench create ${i}`], dir)),
      'node -e 0',
      nodeMs,
      '≤ 2',
    );
    row(
      `lazy comment (${n} tasks)`,
      median((i) => timed(process.execPath, [LAZY, 'comment', id, '-m', `bench comment ${i}`], dir)),
      'node -e 0',
      nodeMs,
      '≤ 2',
    );
  }

  // Reconcile's fixed cost: the same list with 0, 10 and 100 turns running on this machine.
  const { n, dir } = big;
  lazy(['config', 'set', 'agents.sleeper.command', 'sh -c "sleep 3600" sleeper', '--local'], dir);
  lazy(['config', 'set', 'agent', 'sleeper', '--local'], dir);
  const ids = JSON.parse(lazy(['list', '--json'], dir)).map((t) => t.id);
  const list0 = median(() => timed(process.execPath, [LAZY, 'list'], dir));
  const startN = (from, to) => {
    for (const t of ids.slice(from, to)) lazy(['start', t], dir);
  };
  log('starting 10 turns');
  startN(0, 10);
  const list10 = median(() => timed(process.execPath, [LAZY, 'list'], dir));
  log('starting 90 more turns');
  startN(10, 100);
  const list100 = median(() => timed(process.execPath, [LAZY, 'list'], dir));
  row(`lazy list, 0 working (${n} tasks)`, list0, 'itself', list0, '');
  row(`lazy list, 10 working (${n} tasks)`, list10, 'lazy list, 0 working', list0, '');
  row(`lazy list, 100 working (${n} tasks)`, list100, 'lazy list, 0 working', list0, '≤ 1.5');
  // Tear the turns down: kill each supervisor and agent group recorded in its run.
  for (const r of readdirSync(join(dir, '.git', 'lazy', 'runs'))) {
    for (const f of ['agent.json', 'run.json']) {
      try {
        const j = JSON.parse(readFileSync(join(dir, '.git', 'lazy', 'runs', r, f), 'utf8'));
        const pid = f === 'agent.json' ? j.pid : j.supervisor?.pid;
        if (pid)
          try {
            process.kill(-pid, 'SIGKILL');
          } catch {
            try {
              process.kill(pid, 'SIGKILL');
            } catch {
              /* gone */
            }
          }
      } catch {
        /* no such file */
      }
    }
  }

  // Team sync against a local bare remote holding the same tasks.
  const remote = join(work, 'remote.git');
  sh('git', ['init', '-q', '--bare', remote], work);
  sh('git', ['push', '-q', remote, 'refs/lazy/*:refs/lazy/*', 'main:main'], dir);
  const freshClone = (name) => {
    const d = join(work, name);
    sh('git', ['init', '-q', '-b', 'main', d], work);
    sh('git', ['remote', 'add', 'origin', remote], d);
    return d;
  };
  const SYNC_REPS = Number(process.env.BENCH_SYNC_REPS ?? 3);
  const mid = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  // Interleaved (a fetch into one empty clone, then a pull into another), so a slow spell weighs on both alike.
  const firstFetch = [];
  const pulled = [];
  const firstPull = [];
  for (let i = 0; i < SYNC_REPS; i++) {
    firstFetch.push(
      timed(
        'git',
        ['fetch', '-q', '--no-tags', 'origin', '+refs/lazy/*:refs/remotes/origin/lazy/*'],
        freshClone(`floor-${i}`),
      ),
    );
    pulled.push(freshClone(`pull-${i}`));
    firstPull.push(timed(process.execPath, [LAZY, 'pull'], pulled[i]));
  }
  const fetchFloor = mid(firstFetch);
  const pullMs = mid(firstPull);
  row(
    `lazy pull of ${ids.length} tasks into an empty clone`,
    pullMs,
    'git fetch of the same refs',
    fetchFloor,
    '≤ 1.2',
  );
  const clone = pulled[0];
  lazy(['list'], clone);
  const fetchArgs = ['fetch', '-q', '--no-tags', 'origin', '+refs/lazy/*:refs/remotes/origin/lazy/*'];
  // The first fetch into the clone writes its remote-tracking refs: only the ones after it are no-ops.
  timed('git', fetchArgs, clone);
  // Interleaved, so a slow spell of the machine weighs on both sides alike.
  const noop = { fetch: [], pull: [] };
  for (let i = 0; i < 5; i++) {
    noop.fetch.push(timed('git', fetchArgs, clone));
    noop.pull.push(timed(process.execPath, [LAZY, 'pull'], clone));
  }
  const noopFetch = mid(noop.fetch);
  row('lazy pull with nothing to do', mid(noop.pull), 'git fetch (no-op)', noopFetch, '≤ 1.2');
  const noopPush = median(() => timed('git', ['push', '-q', 'origin', 'refs/lazy/*:refs/lazy/*'], clone), 5);
  row(
    'lazy sync with nothing to do',
    median(() => timed(process.execPath, [LAZY, 'sync'], clone), 5),
    'git fetch + git push (no-op)',
    noopFetch + noopPush,
    '≤ 1.5',
  );
  // 100 changed tasks, each with its work branch one commit ahead of main (the remote lacks both),
  // pushed by plain git and by lazy from identical copies to identical remotes.
  log('changing 100 tasks and their branches');
  const mainTip = sh('git', ['rev-parse', 'main'], dir).trim();
  sh('git', ['fetch', '-q', 'origin', 'main'], clone);
  const baseTree = sh('git', ['ls-tree', mainTip], clone);
  for (const t of ids.slice(200, 300)) {
    lazy(['comment', t, '-m', 'changed for the push benchmark'], clone);
    const blob = sh('git', ['hash-object', '-w', '--stdin'], clone, `work of ${t}\n`).trim();
    const tree = sh('git', ['mktree'], clone, `${baseTree}100644 blob ${blob}\twork-${t}.txt\n`).trim();
    const commit = sh('git', ['commit-tree', tree, '-p', mainTip, '-m', `work on ${t}`], clone).trim();
    sh('git', ['update-ref', `refs/heads/lazy/${t}`, commit], clone);
  }
  const pushOnce = (i, withLazy) => {
    const r = join(work, `remote-${withLazy ? 'l' : 'g'}-${i}.git`);
    const c = join(work, `pusher-${withLazy ? 'l' : 'g'}-${i}`);
    cpSync(remote, r, { recursive: true });
    cpSync(clone, c, { recursive: true });
    sh('git', ['remote', 'set-url', 'origin', r], c);
    return withLazy
      ? timed(process.execPath, [LAZY, 'push'], c)
      : timed('git', ['push', '-q', 'origin', 'refs/lazy/*:refs/lazy/*', 'refs/heads/lazy/*:refs/heads/lazy/*'], c);
  };
  // Interleaved, so a slow spell of the machine weighs on both sides alike.
  const floorMs = [];
  const lazyMs = [];
  for (let i = 0; i < SYNC_REPS; i++) {
    floorMs.push(pushOnce(i, false));
    lazyMs.push(pushOnce(i, true));
  }
  row(
    'lazy push of 100 changed tasks with their branches',
    mid(lazyMs),
    'git push of the same refs',
    mid(floorMs),
    '≤ 1.3',
  );
}

const lines = ['| measurement | median ms | floor | floor ms | ratio | target |', '|---|---:|---|---:|---:|---|'];
for (const r of rows) lines.push(`| ${r.name} | ${r.ms} | ${r.floor} | ${r.floor_ms} | ${r.ratio}× | ${r.target} |`);
const table = lines.join('\n');
writeFileSync(
  join(root, 'bench-results.json'),
  JSON.stringify({ date: new Date().toISOString(), node: process.version, reps: REPS, rows }, null, 2) + '\n',
);
process.stdout.write(`\n${table}\n`);
