// What every benchmark shares: the environment, whole-process timing, medians and the table's rows.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const LAZY = join(root, 'bin', 'lazy.cjs');
export const REPS = Number(process.env.BENCH_REPS ?? 15);
export const work = mkdtempSync(join(tmpdir(), 'lazy-bench-'));
// Measured as users run it: this environment's NODE_EXTRA_CA_CERTS makes every node start read a certificate
// bundle (about 45 ms), which users do not pay; it would inflate every floor a ratio divides by.
const { NODE_EXTRA_CA_CERTS: _unsetForTiming, ...inherited } = process.env;
export const env = {
  ...inherited,
  GIT_AUTHOR_NAME: 'Bench',
  GIT_AUTHOR_EMAIL: 'bench@example.com',
  GIT_COMMITTER_NAME: 'Bench',
  GIT_COMMITTER_EMAIL: 'bench@example.com',
  GIT_CONFIG_NOSYSTEM: '1',
  LAZY_LOCK_TIMEOUT_MS: '30000',
};
export const rows = [];
export const log = (s) => process.stderr.write(`bench: ${s}\n`);
if (_unsetForTiming !== undefined) log('NODE_EXTRA_CA_CERTS is unset for every timed command and its floor');

export function sh(cmd, args, cwd, input, extra = {}) {
  const r = spawnSync(cmd, args, { cwd, env: { ...env, ...extra }, input, encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
  return r.stdout;
}
export const lazy = (args, cwd, extra) => sh(process.execPath, [LAZY, ...args], cwd, undefined, extra);
export function timed(cmd, args, cwd, extra = {}) {
  const t = performance.now();
  const r = spawnSync(cmd, args, { cwd, env: { ...env, ...extra }, stdio: ['ignore', 'ignore', 'pipe'] });
  const ms = performance.now() - t;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.stderr}`);
  return ms;
}
export function median(f, reps = REPS) {
  const xs = [];
  for (let i = 0; i < reps; i++) xs.push(f(i));
  xs.sort((a, b) => a - b);
  return xs[Math.floor(xs.length / 2)];
}
export function row(name, ms, floorName, floorMs, target) {
  rows.push({
    name,
    ms: Math.round(ms),
    floor: floorName,
    floor_ms: Math.round(floorMs),
    ratio: +(ms / floorMs).toFixed(2),
    target,
  });
  log(`${name}: ${ms.toFixed(0)} ms (${(ms / floorMs).toFixed(2)}x ${floorName})`);
}

/** A repository holding `n` seeded tasks (the store's own document code, one fast-import), refs packed, gc'd. */
export function seededRepo(name, n) {
  const dir = join(work, name);
  sh('git', ['init', '-q', '-b', 'main', dir], work);
  writeFileSync(join(dir, 'README.md'), '# bench\n');
  sh('git', ['add', '.'], dir);
  sh('git', ['commit', '-q', '-m', 'init'], dir);
  log(`seeding ${n} tasks`);
  lazy(['__bench-seed', String(n)], dir);
  sh('git', ['pack-refs', '--all'], dir);
  sh('git', ['gc', '-q'], dir);
  return dir;
}
