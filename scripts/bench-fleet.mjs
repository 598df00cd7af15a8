// node scripts/bench-fleet.mjs: the fleet's figures (README "The fleet"), on a local bare remote
// and clones standing in for machines, with the fake agent scripted to work 3 s per turn.
//   throughput: 1, 2 and 4 workers (`lazy work origin --drain`) on 24 queued tasks
//   claim: one claim push (task ref, lease, branch; atomic, each with its expected value)
//          against one plain `git push` of one ref
//   overhead: one task through `lazy work --drain` against `lazy start` + `lazy wait` here
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const LAZY = join(root, 'bin', 'lazy.cjs');
const AGENT = join(root, 'test', 'fixtures', 'fake-agent.mjs');
const TASKS = Number(process.env.BENCH_TASKS ?? 24);
const AGENT_MS = Number(process.env.BENCH_AGENT_MS ?? 3000);
const work = mkdtempSync(join(tmpdir(), 'lazy-fleet-bench-'));
const base = {
  ...process.env,
  GIT_AUTHOR_NAME: 'Bench',
  GIT_AUTHOR_EMAIL: 'bench@example.com',
  GIT_COMMITTER_NAME: 'Bench',
  GIT_COMMITTER_EMAIL: 'bench@example.com',
  GIT_CONFIG_NOSYSTEM: '1',
  FAKE_SCENARIO: 'slow-succeed',
  FAKE_SLEEP_MS: String(AGENT_MS),
  LAZY_WORK_POLL_MS: '500',
};
const log = (s) => process.stderr.write(`bench-fleet: ${s}\n`);

function sh(cmd, args, cwd, env = base) {
  const r = spawnSync(cmd, args, { cwd, env, encoding: 'utf8', maxBuffer: 1 << 26 });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}): ${r.stderr}${r.stdout}`);
  return r.stdout;
}
const envOf = (i, dir) => ({ ...base, LAZY_HOST: `machine-${i}`, FAKE_STATE: join(dir, '..', `fake-${i}`) });
const lazy = (args, cwd, i = 0) => sh(process.execPath, [LAZY, ...args], cwd, envOf(i, cwd));

/** A bare remote and n clones, each with the fake agent configured. */
function team(name, n) {
  const dir = join(work, name);
  mkdirSync(dir);
  sh('git', ['init', '-q', '--bare', '-b', 'main', join(dir, 'remote.git')], dir);
  sh('git', ['clone', '-q', join(dir, 'remote.git'), 'seed'], dir);
  writeFileSync(join(dir, 'seed', 'README.md'), '# bench\n');
  sh('git', ['add', '.'], join(dir, 'seed'));
  sh('git', ['commit', '-q', '-m', 'initial'], join(dir, 'seed'));
  sh('git', ['push', '-q', 'origin', 'HEAD:main'], join(dir, 'seed'));
  const clones = [join(dir, 'seed')];
  for (let i = 1; i <= n; i++) {
    sh('git', ['clone', '-q', join(dir, 'remote.git'), `clone${i}`], dir);
    clones.push(join(dir, `clone${i}`));
  }
  clones.forEach((c, i) => {
    lazy(['config', 'set', `agents.fake.command`, `"${process.execPath}" "${AGENT}"`, '--local'], c, i);
    lazy(['config', 'set', 'agent', 'fake', '--local'], c, i);
  });
  return { dir, remote: join(dir, 'remote.git'), seed: clones[0], workers: clones.slice(1) };
}

function queued(tm, n) {
  const ids = [];
  for (let i = 0; i < n; i++) ids.push(lazy(['create', `task ${i}`, '--accept', 'done'], tm.seed).trim());
  lazy(['queue', ...ids], tm.seed);
  lazy(['push'], tm.seed);
  return ids;
}

const run = (cwd, i, args) =>
  new Promise((res, rej) => {
    const c = spawn(process.execPath, [LAZY, ...args], { cwd, env: envOf(i, cwd), stdio: 'ignore' });
    c.on('error', rej);
    c.on('close', (code) => (code === 0 ? res() : rej(new Error(`lazy ${args.join(' ')} exited ${code}`))));
  });

async function throughput(workers) {
  const tm = team(`w${workers}`, workers);
  queued(tm, TASKS);
  const t = performance.now();
  await Promise.all(tm.workers.map((c, i) => run(c, i + 1, ['work', 'origin', '--drain'])));
  return performance.now() - t;
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** One claim-shaped push (three refs, atomic, each with its expected value) against a plain one-ref push. */
function claimCost(reps = 9) {
  const tm = team('claim', 1);
  const c = tm.seed;
  const head = sh('git', ['rev-parse', 'HEAD'], c).trim();
  const plain = [];
  const claim = [];
  for (let i = 0; i < reps; i++) {
    let t = performance.now();
    sh('git', ['push', '-q', 'origin', `${head}:refs/bench/plain-${i}`], c);
    plain.push(performance.now() - t);
    const refs = [`refs/lazy/tasks/b${i}`, `refs/lazy/leases/b${i}`, `refs/heads/lazy/b${i}`];
    t = performance.now();
    sh(
      'git',
      [
        'push',
        '--porcelain',
        '--atomic',
        ...refs.map((r) => `--force-with-lease=${r}:`),
        'origin',
        ...refs.map((r) => `${head}:${r}`),
      ],
      c,
    );
    claim.push(performance.now() - t);
  }
  return { plain: median(plain), claim: median(claim) };
}

async function overhead() {
  const tm = team('overhead', 1);
  const [id] = queued(tm, 1);
  let t = performance.now();
  await run(tm.workers[0], 1, ['work', 'origin', '--drain']);
  const fleet = performance.now() - t;
  const local = lazy(['create', 'local task', '--accept', 'done'], tm.seed).trim();
  t = performance.now();
  lazy(['start', local], tm.seed);
  lazy(['wait', local], tm.seed);
  return { fleet, local: performance.now() - t, id };
}

try {
  const times = {};
  for (const w of [1, 2, 4]) {
    times[w] = await throughput(w);
    log(`${w} worker(s), ${TASKS} tasks of ${AGENT_MS} ms: ${Math.round(times[w])} ms`);
  }
  const c = claimCost();
  const o = await overhead();
  const rows = [
    ['2 workers against 1', times[2], times[1]],
    ['4 workers against 1', times[4], times[1], '≤ 0.35'],
    ['claim push against one plain git push', c.claim, c.plain, '≤ 1.5'],
    ['one task through lazy work against lazy start + wait', o.fleet, o.local, '≤ 1.5'],
  ];
  console.log('| measurement | ms | against (ms) | ratio | target |\n|---|---:|---:|---:|---|');
  for (const [name, a, b, target = ''] of rows)
    console.log(`| ${name} | ${Math.round(a)} | ${Math.round(b)} | ${(a / b).toFixed(2)}× | ${target} |`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
