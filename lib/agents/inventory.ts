import { spawn } from 'node:child_process';
import { readFileSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { LazyError } from '../core/errors.js';
import { env } from '../core/env.js';
import { pollUntil } from '../core/clock.js';
import { signalGroup } from '../core/proc.js';
import { sanitizeLine } from '../core/sanitize.js';
import type { Config } from '../store/config/index.js';
import { ADAPTERS, DEFAULT_AGENT, resolveAgent } from './adapters/registry.js';
import { splitCommand } from './adapters/split.js';
import { resolveExecutable } from './adapters/which.js';

// The agents this clone could run (lazy doctor): the built-in names and every configured
// agents.<name>, each with its program, its version and whether a turn could start with it.
// Only a trusted agent's program is run, and only as `<command> --version`, killed with its
// whole process group when it does not answer in time: a CLI that hangs never hangs doctor.

export interface AgentFound {
  name: string;
  /** The adapter it would run with (the configured one, the built-in's, else command). */
  adapter: string;
  /** Its command line as configured (a built-in's name when none is). */
  command: string;
  /** The program, resolved on PATH (or the configured path, when executable); null when not found. */
  path: string | null;
  /** `<command> --version`'s first line; null when it was not run, failed or did not answer in time. */
  version: string | null;
  /** Its settings are this clone's or trusted (lazy config trust): an untrusted agent is never run, not even here. */
  trusted: boolean;
  /** A turn could start with it: defined, found, trusted and its adapter known to this release. */
  usable: boolean;
  /** What keeps it from being usable; null when it is. */
  problem: string | null;
  /** The agent a task runs with when it names none (config `agent`, else claude). */
  default: boolean;
  /** agents.<name>.model, when set. */
  model: string | null;
}

/** How long `<command> --version` may take: CLIs that start node answer in well under a second. */
export const VERSION_TIMEOUT_MS = 5_000;

/** The built-in names (every adapter named after its CLI) first, then the configured ones by name. */
export function agentNames(config: Config): string[] {
  const builtins = Object.keys(ADAPTERS).filter((n) => n !== 'command');
  const configured = [...Object.keys(config.agents ?? {}), ...(config.agent ? [config.agent] : [])];
  return [...new Set([...builtins, ...configured.filter((n) => !builtins.includes(n)).sort()])];
}

/** Every agent of agentNames, probed at once (their versions in parallel). */
export function listAgents(config: Config, cwd: string): Promise<AgentFound[]> {
  const byDefault = config.agent ?? DEFAULT_AGENT;
  return Promise.all(agentNames(config).map((name) => probeAgent(config, name, name === byDefault, cwd)));
}

async function probeAgent(config: Config, name: string, isDefault: boolean, cwd: string): Promise<AgentFound> {
  const entry = config.agents?.[name];
  const builtin = Object.hasOwn(ADAPTERS, name) && name !== 'command';
  const adapter = entry?.adapter ?? (builtin ? name : 'command');
  const command = [entry?.command ?? name, entry?.args].filter(Boolean).join(' ');
  const trusted = !config.untrusted?.includes(name);
  const base = { name, adapter, command, trusted, default: isDefault, model: entry?.model ?? null };
  let argv: string[];
  try {
    argv = resolveAgent(config, name).command;
  } catch (e) {
    if (!(e instanceof LazyError)) throw e;
    // Untrusted or undefined: its program is looked for, never run.
    const path = entry?.command || builtin ? programPath(command) : null;
    return { ...base, path, version: null, usable: false, problem: e.message };
  }
  const path = resolveExecutable(argv[0]!, env().PATH) ?? null;
  if (!(adapter in ADAPTERS))
    return { ...base, path, version: null, usable: false, problem: `adapter '${adapter}' is unknown to this lazy` };
  if (!path)
    return {
      ...base,
      path,
      version: null,
      usable: false,
      problem: `its program '${argv[0]}' is not installed or not on PATH`,
    };
  // The package's own version only for a program run as itself: `npx @google/gemini-cli` is npm's package.
  const packaged = argv.length === 1 ? packageVersion(path) : null;
  return { ...base, path, version: packaged ?? (await versionOf(argv, cwd)), usable: true, problem: null };
}

/**
 * The version of the npm package whose `bin` this program is (claude, codex, gemini, pi and opencode all ship so), read
 * from its package.json: starting a CLI only to ask its version costs up to two seconds (gemini's). Null for anything
 * else, whose `--version` is asked instead.
 */
export function packageVersion(path: string): string | null {
  let real: string;
  try {
    real = realpathSync(path);
  } catch {
    return null;
  }
  for (let dir = dirname(real), i = 0; i < 6 && dir !== dirname(dir); dir = dirname(dir), i++) {
    let pkg: { version?: unknown; bin?: unknown };
    try {
      pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    } catch {
      continue;
    }
    if (!pkg || typeof pkg !== 'object') continue;
    const bins =
      typeof pkg.bin === 'string' ? [pkg.bin] : pkg.bin && typeof pkg.bin === 'object' ? Object.values(pkg.bin) : [];
    // Only the package that names this very file as a program: not whatever package.json lies above a script (a
    // nameless one, such as a dist folder's {"type": "module"}, is passed over).
    if (bins.some((b) => typeof b === 'string' && realOr(join(dir, b)) === real))
      return typeof pkg.version === 'string' ? sanitizeLine(pkg.version).slice(0, 200) : null;
    if (typeof (pkg as { name?: unknown }).name === 'string') return null;
  }
  return null;
}

const realOr = (p: string): string | null => {
  try {
    return realpathSync(p);
  } catch {
    return null;
  }
};

/** The program of a command line that resolveAgent refused, where it still splits. */
function programPath(command: string): string | null {
  try {
    const program = splitCommand(command)[0];
    return program ? (resolveExecutable(program, env().PATH) ?? null) : null;
  } catch {
    return null;
  }
}

/** The first line `<argv> --version` prints (stdout, else stderr), or null: it failed, or did not answer in time. */
export async function versionOf(argv: string[], cwd: string, timeoutMs = VERSION_TIMEOUT_MS): Promise<string | null> {
  // Its own process group, so a timeout ends whatever it started too; stdin closed, so it never waits on input.
  const child = spawn(argv[0]!, [...argv.slice(1), '--version'], {
    cwd,
    env: env(),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const out = { stdout: '', stderr: '' };
  const keep = (k: 'stdout' | 'stderr') => (d: string) => {
    if (out[k].length < 4096) out[k] += d;
  };
  child.stdout.setEncoding('utf8').on('data', keep('stdout'));
  child.stderr.setEncoding('utf8').on('data', keep('stderr'));
  let end: { code: number | null } | null = null;
  const ended = new Promise<void>((res) => {
    child.once('error', () => res(void (end ??= { code: null })));
    child.once('close', (code) => res(void (end ??= { code })));
  });
  if (!(await pollUntil(() => end !== null, timeoutMs, 20))) {
    if (child.pid) signalGroup(child.pid, 'SIGKILL');
    await ended;
    return null;
  }
  const done = end as { code: number | null } | null;
  if (done?.code !== 0) return null;
  const line = [out.stdout, out.stderr]
    .flatMap((s) => s.split('\n'))
    .map((l) => l.trim())
    .find(Boolean);
  return line ? sanitizeLine(line).slice(0, 200) : null;
}
