import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { background, exited, trackFolder } from './procs.js';
import { fileURLToPath } from 'node:url';
import { inproc } from './inproc.js';
import type { Io } from '../../lib/core/io.js';

// Real git repositories in temporary folders, and the built CLI spawned as a user would.

/** The repository: the nearest folder above this module with lazy's package.json (tests also run bundled, from build/test/). */
export const ROOT = ((from: string): string => {
  for (let d = from; ; d = dirname(d)) {
    const pkg = join(d, 'package.json');
    if (existsSync(pkg) && (JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name === 'lazy') return d;
    if (dirname(d) === d) throw new Error(`no lazy package.json above ${from}`);
  }
})(dirname(fileURLToPath(import.meta.url)));
export const LAZY = join(ROOT, 'bin', 'lazy.cjs');
/** `node SLOW_ACCEPT <delay-ms> accept <id> …`: a real lazy process whose accept pauses before each step. */
export const SLOW_ACCEPT = join(ROOT, 'test', 'fixtures', 'slow-accept.cjs');

/** A hermetic git environment: no user or system config, a fixed identity. */
export function testEnv(home: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const k of Object.keys(env)) if (k.startsWith('GIT_') || k.startsWith('LAZY_')) delete env[k];
  // Coverage is measured in the test processes only (scripts/test.mjs); the bundle's would not map to lib/.
  delete env.NODE_V8_COVERAGE;
  // The user's settings file is under the sandbox's HOME, never the developer's.
  delete env.XDG_CONFIG_HOME;
  return {
    ...env,
    HOME: home,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: join(home, '.gitconfig'),
    GIT_AUTHOR_NAME: 'Ada Lovelace',
    GIT_AUTHOR_EMAIL: 'ada@example.com',
    GIT_COMMITTER_NAME: 'Ada Lovelace',
    GIT_COMMITTER_EMAIL: 'ada@example.com',
    COLUMNS: '120',
    // The node the fake agent (test/fixtures/fake-agent.sh) hands its node-only scenarios to.
    FAKE_NODE: process.execPath,
    ...extra,
  };
}

/** cleanup() stops every process running in the sandbox, waits for it, then removes the folder. */
export interface Sandbox {
  dir: string;
  home: string;
  env: NodeJS.ProcessEnv;
  cleanup(): Promise<void>;
}

/** A temp dir holding a fresh repository (`repo/`) with one commit on main. */
export function sandbox(name = 'lazy-test'): Sandbox {
  const root = mkdtempSync(join(tmpdir(), `${name}-`));
  const cleanup = trackFolder(root);
  const home = join(root, 'home');
  const dir = join(root, 'repo');
  spawnSync('mkdir', ['-p', home, dir]);
  writeFileSync(join(home, '.gitconfig'), '[init]\n\tdefaultBranch = main\n[advice]\n\tdetachedHead = false\n');
  const env = testEnv(home);
  gitSync(dir, env, ['init', '-q', '-b', 'main']);
  writeFileSync(join(dir, 'README.md'), '# sandbox\n');
  gitSync(dir, env, ['add', 'README.md']);
  gitSync(dir, env, ['commit', '-q', '-m', 'initial commit']);
  return { dir, home, env, cleanup };
}

export function gitSync(cwd: string, env: NodeJS.ProcessEnv, args: string[], input?: string): string {
  const r = spawnSync('git', args, { cwd, env, input, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')} failed: ${r.stderr}`);
  return r.stdout;
}

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
  signal: NodeJS.Signals | null;
}

export interface RunOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  input?: string | Buffer;
  timeoutMs?: number;
  /** In-process runs only: parts of the port to replace (see InprocOptions.io). */
  io?: Partial<Io>;
}

/**
 * Runs one command in this process (main() with a recording port). Behaviour tests use
 * this; CLI-contract tests (exit codes of the real binary, signals, pipes, parallel
 * processes) use lazySpawn.
 */
export function lazy(args: string[], o: RunOptions): Promise<Run> {
  return inproc(args, { cwd: o.cwd, env: o.env, input: o.input, cliPath: LAZY, io: o.io });
}

/** Spawns the built CLI; stdin is always closed (empty unless input is given). */
export function lazySpawn(args: string[], o: RunOptions): Promise<Run> {
  return new Promise((res, rej) => {
    const child = background(process.execPath, [LAZY, ...args], {
      cwd: o.cwd,
      env: o.env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), o.timeoutMs ?? 60_000);
    child.on('error', rej);
    void exited(child).then(({ code, signal }) => {
      clearTimeout(timer);
      res({ code: code ?? -1, stdout, stderr, signal });
    });
    child.stdin.end(o.input ?? '');
  });
}

/** Runs the CLI with --json and parses stdout. */
export async function lazyJson<T = any>(args: string[], o: RunOptions): Promise<{ run: Run; value: T }> {
  const run = await lazy([...args, '--json'], o);
  let value: T;
  try {
    value = JSON.parse(run.stdout) as T;
  } catch {
    throw new Error(`not JSON (exit ${run.code}): ${run.stdout}\n${run.stderr}`);
  }
  return { run, value };
}

/** A Sandbox-bound runner: `const l = cli(sb); await l('create', 'goal')`; `io` replaces parts of every in-process command's port. */
export function cli(sb: Sandbox, extraEnv: NodeJS.ProcessEnv = {}, io?: Partial<Io>) {
  const o = () => ({ cwd: sb.dir, env: { ...sb.env, ...extraEnv }, io });
  const run = (...args: string[]) => lazy(args, o());
  run.json = <T = any>(...args: string[]) => lazyJson<T>(args, o());
  run.input = (input: string, ...args: string[]) => lazy(args, { ...o(), input });
  /** The built binary, for the CLI contract (a real process, its exit code). */
  run.spawn = (...args: string[]) => lazySpawn(args, o());
  /** The same, for a command whose work takes longer than the default minute on a loaded machine. */
  run.spawnWithin = (timeoutMs: number, ...args: string[]) => lazySpawn(args, { ...o(), timeoutMs });
  /** Creates a task and returns its id, failing loudly otherwise. */
  run.create = async (...args: string[]) => {
    const r = await lazy(['create', ...args], o());
    if (r.code !== 0) throw new Error(`create failed: ${r.stderr}`);
    return r.stdout.trim();
  };
  return run;
}

/** Runs a real accept (pausing `delayMs` before each step) and SIGKILLs it as it announces `phase`; the signal it died of. */
export function killAcceptAt(sb: Sandbox, id: string, phase: string, delayMs = 1500): Promise<string> {
  return new Promise((res) => {
    const c = background(process.execPath, [SLOW_ACCEPT, String(delayMs), 'accept', id, '--yes'], {
      cwd: sb.dir,
      env: sb.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    c.stdout.on('data', (d) => {
      out += d;
      if (out.includes(phase)) c.kill('SIGKILL');
    });
    c.on('close', (_code, signal) => res(signal ?? 'exited'));
  });
}
