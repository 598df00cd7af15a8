// A loaded fleet, measured (issue 27): W workers × --max M on one remote, a short lease, busy loops beside
// them, N tasks of an agent that works S seconds. It reports what integrity under load means: claims lost by
// live workers, agent runs per task, and the worst overlap of two agents on one task (sampled every 25 ms).
//
//   node scripts/fleet-load.mjs   (WORKERS=4 MAX=2 TASKS=20 AGENT_MS=4000 LEASE_S=9 BUSY=2)
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const LAZY = join(root, 'bin', 'lazy.cjs');
const AGENT = join(root, 'test', 'fixtures', 'fake-agent.sh');
const num = (k, d) => Number(process.env[k] ?? d);
const [W, MAX, N, AGENT_MS, LEASE_S, BUSY] = [
  num('WORKERS', 4),
  num('MAX', 2),
  num('TASKS', 20),
  num('AGENT_MS', 4000),
  num('LEASE_S', 9),
  num('BUSY', 2),
];

const dir = mkdtempSync(join(tmpdir(), 'lazy-fleet-load-'));
const env0 = { ...process.env };
for (const k of Object.keys(env0)) if (k.startsWith('GIT_') || k.startsWith('LAZY_')) delete env0[k];
const envOf = (i) => ({
  ...env0,
  HOME: join(dir, `home${i}`),
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: join(dir, `home${i}`, '.gitconfig'),
  GIT_AUTHOR_NAME: `w${i}`,
  GIT_AUTHOR_EMAIL: `w${i}@example.com`,
  GIT_COMMITTER_NAME: `w${i}`,
  GIT_COMMITTER_EMAIL: `w${i}@example.com`,
  LAZY_HOST: `box-${i}`,
  FAKE_STATE: join(dir, `home${i}`, 'fake'),
  FAKE_LOG: join(dir, `home${i}`, 'agent.jsonl'),
  FAKE_SCENARIO: 'slow-succeed',
  FAKE_SLEEP_MS: String(AGENT_MS),
  FAKE_NODE: process.execPath,
});
const git = (cwd, env, ...a) => execFileSync('git', a, { cwd, env, encoding: 'utf8' });
const lazy = (cwd, env, ...a) => execFileSync(process.execPath, [LAZY, ...a], { cwd, env, encoding: 'utf8' });

const remote = join(dir, 'remote.git');
git(dir, env0, 'init', '-q', '--bare', '-b', 'main', remote);
const clones = [];
for (let i = 0; i <= W; i++) {
  const c = join(dir, `clone${i}`);
  const env = envOf(i);
  mkdirSync(env.HOME, { recursive: true });
  git(dir, env, 'clone', '-q', remote, c);
  if (i === 0) {
    writeFileSync(join(c, 'README.md'), '# load\n');
    git(c, env, 'add', '.');
    git(c, env, 'commit', '-q', '-m', 'initial');
    git(c, env, 'push', '-q', 'origin', 'HEAD:main');
  } else git(c, env, 'pull', '-q', 'origin', 'main');
  for (const [k, v] of [
    ['agents.fake.command', `/bin/sh "${AGENT}"`],
    ['agent', 'fake'],
    ['work.lease_seconds', String(LEASE_S)],
  ])
    lazy(c, env, 'config', 'set', k, v, '--local');
  clones.push({ dir: c, env });
}
const ids = [];
for (let i = 0; i < N; i++)
  ids.push(lazy(clones[0].dir, clones[0].env, 'create', `task ${i}`, '--accept', 'done').trim());
lazy(clones[0].dir, clones[0].env, 'queue', ...ids);
lazy(clones[0].dir, clones[0].env, 'push');

const busy = Array.from({ length: BUSY }, () => spawn('sh', ['-c', 'while :; do :; done'], { stdio: 'ignore' }));

/** task → clones with a live agent for it now (their runs' agent.json, checked in /proc). */
function live() {
  const out = new Map();
  for (const [i, c] of clones.entries()) {
    const runs = join(c.dir, '.git', 'lazy', 'runs');
    let names = [];
    try {
      names = readdirSync(runs);
    } catch {
      continue;
    }
    for (const r of names)
      try {
        const a = JSON.parse(readFileSync(join(runs, r, 'agent.json'), 'utf8'));
        const task = JSON.parse(readFileSync(join(runs, r, 'run.json'), 'utf8')).task;
        const st = readFileSync(`/proc/${a.pid}/stat`, 'utf8');
        if (/\) Z /.test(st)) continue;
        out.set(task, new Set([...(out.get(task) ?? []), i]));
      } catch {
        /* no agent, or gone */
      }
  }
  return out;
}
const since = new Map();
let worst = 0;
const sampler = setInterval(() => {
  const t = Date.now();
  const now = live();
  for (const id of ids) {
    const two = (now.get(id)?.size ?? 0) > 1;
    if (two && !since.has(id)) since.set(id, t);
    if (!two && since.has(id)) {
      worst = Math.max(worst, t - since.get(id));
      since.delete(id);
    }
  }
}, 25);

const t0 = Date.now();
const results = await Promise.all(
  clones.slice(1).map(
    (c) =>
      new Promise((res) => {
        const p = spawn(process.execPath, [LAZY, 'work', 'origin', '--drain', '--max', String(MAX), '--json'], {
          cwd: c.dir,
          env: { ...c.env, LAZY_WORK_POLL_MS: '500' },
        });
        let out = '';
        let err = '';
        p.stdout.on('data', (d) => (out += d));
        p.stderr.on('data', (d) => (err += d));
        p.on('close', (code) => res({ code, out, err }));
      }),
  ),
);
const wall = (Date.now() - t0) / 1000;
clearInterval(sampler);
for (const b of busy) b.kill('SIGKILL');

const runs = new Map();
for (const c of clones) {
  let text = '';
  try {
    text = readFileSync(c.env.FAKE_LOG, 'utf8');
  } catch {
    continue;
  }
  for (const line of text.split('\n').filter(Boolean)) {
    const id = JSON.parse(line).env.LAZY_TASK_ID;
    runs.set(id, (runs.get(id) ?? 0) + 1);
  }
}
const summaries = results.map((r) => {
  try {
    return JSON.parse(r.out);
  } catch {
    return { claimed: [], finished: [], lost: [], released: [], error: r.err.slice(-400) };
  }
});
const sum = (k) => summaries.reduce((n, s) => n + (s[k]?.length ?? 0), 0);
lazy(clones[0].dir, clones[0].env, 'pull');
const statuses = JSON.parse(lazy(clones[0].dir, clones[0].env, 'list', '--all', '--json')).map((r) => r.status);
const report = {
  workers: W,
  max: MAX,
  tasks: N,
  agent_ms: AGENT_MS,
  lease_s: LEASE_S,
  busy_loops: BUSY,
  wall_s: Math.round(wall * 10) / 10,
  exit_codes: results.map((r) => r.code),
  claimed: sum('claimed'),
  finished: sum('finished'),
  lost: sum('lost'),
  released: sum('released'),
  agent_runs: [...runs.values()].reduce((a, b) => a + b, 0),
  tasks_run_more_than_once: [...runs.values()].filter((n) => n > 1).length,
  tasks_never_run: ids.filter((id) => !runs.has(id)).length,
  worst_overlap_ms: worst,
  final_statuses: Object.fromEntries(statuses.reduce((m, s) => m.set(s, (m.get(s) ?? 0) + 1), new Map())),
};
console.log(JSON.stringify(report, null, 2));
for (const s of summaries) if (s.error) console.error(s.error);
rmSync(dir, { recursive: true, force: true });
