import { appendFileSync, existsSync } from 'node:fs';
import { writeFileAtomicSync } from '../core/fsutil.js';
import { identityOf } from '../core/proc.js';
import type { Adapter, AgentSpec, StreamState, TurnInput } from './adapter.js';
import { classifyCommon } from './taxonomy.js';

// One launch of the agent process: output to the run log and through the adapter's
// parser, a watchdog on forward progress, and the user's stop request honoured with
// SIGTERM, then SIGKILL after a grace period.

export interface AttemptInput {
  adapter: Adapter;
  spec: AgentSpec;
  input: TurnInput;
  state: StreamState;
  cwd: string;
  env: Record<string, string>;
  logPath: string;
  agentFile: string;
  stopFile: string;
  attempt: number;
  watchdogMs: number;
  graceMs: number;
  /** In-stream retries of an unreachable endpoint before lazy gives up on the attempt. */
  unreachableMax: number;
}

export interface AttemptResult {
  exitCode: number | null;
  signal: string | null;
  durationMs: number;
  /** Combined stdout+stderr, last 64 KiB: what classification and summaries read. */
  tail: string;
  stopped: boolean;
  watchdog: boolean;
  gaveUp?: string;
  spawnError?: string;
}

const TAIL_BYTES = 64 * 1024;

export async function runAgentOnce(a: AttemptInput): Promise<AttemptResult> {
  const { execa } = await import('execa');
  const argv = a.adapter.argv(a.spec, a.input);
  const started = Date.now();
  let tail = '';
  let partial = '';
  let lastProgress = Date.now();
  let stopped = false;
  let watchdog = false;
  let gaveUp: string | undefined;
  const child = execa(argv[0]!, argv.slice(1), {
    cwd: a.cwd, env: a.env, extendEnv: true, stdin: 'ignore', buffer: false, reject: false, detached: true, cleanup: false,
  });
  if (child.pid) writeFileAtomicSync(a.agentFile, JSON.stringify({ ...identityOf(child.pid), attempt: a.attempt }));

  const onLine = (line: string) => {
    if (a.adapter.parseLine(line, a.state) === 'progress') lastProgress = Date.now();
    else if (classifyCommon(a.state.retry?.message ?? '') === 'transient_unreachable' && (a.state.retry?.count ?? 0) >= a.unreachableMax && !gaveUp) {
      gaveUp = `the agent kept retrying an unreachable endpoint (${a.state.retry!.message})`;
      kill();
    }
  };
  const write = (chunk: Buffer, isStdout: boolean) => {
    const text = chunk.toString('utf8');
    appendFileSync(a.logPath, text);
    tail = (tail + text).slice(-TAIL_BYTES);
    if (!isStdout) { lastProgress = Date.now(); return; }
    const lines = (partial + text).split('\n');
    partial = lines.pop() ?? '';
    for (const l of lines) onLine(l);
  };
  child.stdout?.on('data', (c: Buffer) => write(c, true));
  child.stderr?.on('data', (c: Buffer) => write(c, false));

  let killTimer: NodeJS.Timeout | undefined;
  const signalGroup = (sig: NodeJS.Signals) => {
    if (!child.pid) return;
    try { process.kill(-child.pid, sig); } catch { try { child.kill(sig); } catch { /* gone */ } }
  };
  function kill() {
    if (killTimer) return;
    signalGroup('SIGTERM');
    killTimer = setTimeout(() => signalGroup('SIGKILL'), a.graceMs);
  }
  const ticker = setInterval(() => {
    if (!stopped && existsSync(a.stopFile)) { stopped = true; kill(); }
    if (!watchdog && Date.now() - lastProgress > a.watchdogMs) { watchdog = true; kill(); }
  }, 200);

  const res = await child;
  clearInterval(ticker);
  if (killTimer) clearTimeout(killTimer);
  if (partial) onLine(partial);
  const spawnError = res.failed && res.exitCode === undefined && !res.signal
    ? `cannot start ${argv[0]}: ${(res as { code?: string }).code === 'ENOENT' ? 'not found' : res.shortMessage ?? 'spawn failed'}`
    : undefined;
  return {
    exitCode: res.exitCode ?? null, signal: res.signal ?? null, durationMs: Date.now() - started, tail,
    stopped: stopped || existsSync(a.stopFile), watchdog, ...(gaveUp ? { gaveUp } : {}), ...(spawnError ? { spawnError } : {}),
  };
}
