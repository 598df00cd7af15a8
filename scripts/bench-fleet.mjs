// The fleet's rows: workers on clones of one bare remote draining a queue, a claim against
// one plain git push, and a worker's overhead against a local start of the same task.
import { spawn } from 'node:child_process';
import { cpSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { LAZY, env, lazy, log, median, root, row, sh, timed, work } from './bench-lib.mjs';

const FAKE = join(root, 'test', 'fixtures', 'fake-agent.mjs');
const TASKS = Number(process.env.BENCH_FLEET_TASKS ?? 24);
const AGENT_MS = Number(process.env.BENCH_FLEET_AGENT_MS ?? 3000);
const REPS = Number(process.env.BENCH_FLEET_REPS ?? 5);

/** A clone of `remote` set up as one machine: its own host name, the fake agent, its own log. */
function machine(remote, name, sleepMs) {
  const dir = join(work, name);
  sh('git', ['clone', '-q', remote, dir], work);
  lazy(['config', 'set', 'agents.fake.command', `"${process.execPath}" "${FAKE}"`, '--local'], dir);
  lazy(['config', 'set', 'agent', 'fake', '--local'], dir);
  const extra = {
    LAZY_HOST: name,
    FAKE_STATE: join(work, `${name}-state`),
    FAKE_LOG: join(work, `${name}-agent.log`),
    FAKE_SCENARIO: sleepMs ? 'slow-succeed' : 'succeed',
    FAKE_SLEEP_MS: String(sleepMs),
  };
  return { dir, extra, log: extra.FAKE_LOG };
}

/** A bare remote holding `n` queued tasks (and main), seeded from one clone. */
function queuedRemote(name, n) {
  const remote = join(work, `${name}.git`);
  sh('git', ['init', '-q', '--bare', '-b', 'main', remote], work);
  const seed = join(work, `${name}-seed`);
  sh('git', ['init', '-q', '-b', 'main', seed], work);
  sh('git', ['commit', '-q', '--allow-empty', '-m', 'init'], seed);
  sh('git', ['remote', 'add', 'origin', remote], seed);
  sh('git', ['push', '-q', 'origin', 'main'], seed);
  const ids = [];
  for (let i = 0; i < n; i++)
    ids.push(JSON.parse(lazy(['create', `fleet task ${i}`, '--accept', 'it is done', '--json'], seed)).task.id);
  lazy(['queue', ...ids], seed);
  lazy(['push', 'origin'], seed);
  return { remote, ids };
}

function runWorker(m, args) {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [LAZY, 'work', 'origin', '--drain', ...args], {
      cwd: m.dir,
      env: { ...env, ...m.extra },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    p.stderr.on('data', (d) => (err += d));
    p.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`lazy work failed (${code}): ${err}`))));
  });
}

const runs = (m) => (existsSync(m.log) ? readFileSync(m.log, 'utf8').split('\n').filter(Boolean).length : 0);

/** Wall time for `workers` machines to drain TASKS queued tasks; checks every task ran exactly once. */
async function drain(base, workers) {
  const remote = join(work, `drain-${workers}.git`);
  cpSync(base, remote, { recursive: true });
  const ms = Array.from({ length: workers }, (_, i) => machine(remote, `w${workers}-${i}`, AGENT_MS));
  const t = performance.now();
  await Promise.all(ms.map((m) => runWorker(m, ['--max', '1'])));
  const took = performance.now() - t;
  const total = ms.reduce((n, m) => n + runs(m), 0);
  if (total !== TASKS) throw new Error(`${workers} workers ran ${total} turns for ${TASKS} tasks`);
  return took;
}

export async function fleetBench() {
  log(`fleet: ${TASKS} queued tasks, a ${AGENT_MS} ms agent`);
  const { remote: base } = queuedRemote('fleet', TASKS);
  const one = await drain(base, 1);
  row(`lazy work: ${TASKS} tasks, 1 worker`, one, 'itself', one, '');
  row(`lazy work: ${TASKS} tasks, 2 workers`, await drain(base, 2), '1 worker', one, '');
  row(`lazy work: ${TASKS} tasks, 4 workers`, await drain(base, 4), '1 worker', one, '≤ 0.35');
  await claimAndOverhead();
}

/**
 * One queued task, an agent that answers at once: the worker's claim (its own timing, from --json) against
 * one plain `git push` of one ref, and the whole `lazy work --drain` against `lazy start` + `lazy wait` here.
 */
async function claimAndOverhead() {
  const { remote: base, ids } = queuedRemote('single', 1);
  const claims = [];
  const workMs = median((i) => {
    const remote = join(work, `single-${i}.git`);
    cpSync(base, remote, { recursive: true });
    const m = machine(remote, `solo-${i}`, 0);
    const t = performance.now();
    const out = JSON.parse(lazy(['work', 'origin', '--drain', '--json'], m.dir, m.extra));
    const ms = performance.now() - t;
    claims.push(...out.claimed.map((c) => [c.push_ms, c.ms]));
    return ms;
  }, REPS);
  const startMs = median((i) => {
    const remote = join(work, `local-${i}.git`);
    cpSync(base, remote, { recursive: true });
    const m = machine(remote, `local-${i}`, 0);
    lazy(['pull', 'origin'], m.dir, m.extra);
    const t = performance.now();
    lazy(['start', ids[0]], m.dir, m.extra);
    lazy(['wait', ids[0]], m.dir, m.extra);
    return performance.now() - t;
  }, REPS);
  const pushFloor = median((i) => {
    const remote = join(work, `push-${i}.git`);
    cpSync(base, remote, { recursive: true });
    const m = machine(remote, `pusher-${i}`, 0);
    sh('git', ['commit', '-q', '--allow-empty', '-m', 'one more'], m.dir);
    return timed('git', ['push', '-q', 'origin', 'HEAD:refs/heads/bench'], m.dir);
  }, REPS);
  const mid = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const pushFloorName = 'git push of one ref';
  row('lazy work: claim push (task, lease, branch)', mid(claims.map((c) => c[0])), pushFloorName, pushFloor, '≤ 1.5');
  row('lazy work: claim, pick to accepted', mid(claims.map((c) => c[1])), pushFloorName, pushFloor, '');
  row('lazy work --drain, one task', workMs, 'lazy start + lazy wait, same task', startMs, '≤ 1.5');
}
