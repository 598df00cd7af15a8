import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, fstatSync, openSync, renameSync, writeSync } from 'node:fs';
import { writeFileAtomicSync } from '../../core/fsutil.js';
import { identityOf, signalGroup } from '../../core/proc.js';
import type { Adapter, AgentSpec, StreamState, TurnInput } from '../adapters/adapter.js';
import { classOfErrorMessage } from '../adapters/taxonomy.js';
import { retryReason, type Retrying } from '../substate.js';
import { endGroup } from './kill.js';
import { env } from '../../core/env.js';
import { now, nowIso, poll, sleep } from '../../core/clock.js';

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
  /** The agent CLI is retrying on its own (a retry line), or no longer is (null: progress, or the attempt ended). */
  onRetry?: (r: Retrying | null) => void;
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
/** A longer output line is not parsed (it only counts as progress): the supervisor's memory stays bounded. */
const MAX_LINE = 8 * 1024 * 1024;
/** The run log is rotated at this size (output.log → output.log.1): a run keeps at most twice this on disk. */
const LOG_ROTATE_BYTES = 32 * 1024 * 1024;
/** Once the agent's group is gone, how long output still held open by an escaped process is awaited. */
const DRAIN_MS = 1000;
/** How long after the stop request's own SIGKILL (`lazy stop`'s) the supervisor sends its backstop one. */
const STOP_BACKSTOP_MS = 5000;
/** How often the attempt looks at the stop file and the watchdog. */
const TICK_MS = 200;

/** One attempt under way: what its output handlers, its timers and its end share. */
interface Running {
  a: AttemptInput;
  child: ChildProcess;
  /** The run log (reopened when it is rotated) and how many bytes it holds. */
  log: number;
  logged: number;
  tail: string;
  lastProgress: number;
  stopped: boolean;
  watchdog: boolean;
  gaveUp?: string;
  /** The agent CLI is retrying on its own: its next progress ends that. */
  retrying: boolean;
  /** When the SIGKILL that follows a SIGTERM is due (sent once). */
  killAt?: number;
  killed: boolean;
}

export async function runAgentOnce(a: AttemptInput): Promise<AttemptResult> {
  const argv = a.adapter.argv(a.spec, a.input);
  const started = now();
  const lastProgress = now();
  const { child, spawnFailed } = spawnAgent(a, argv);
  const log = openSync(a.logPath, 'a');
  const run: Running = {
    a,
    child,
    log,
    logged: fstatSync(log).size,
    tail: '',
    lastProgress,
    stopped: false,
    watchdog: false,
    retrying: false,
    killed: false,
  };
  const lines = readOutput(run);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((res) =>
    child.once('exit', (code, signal) => res({ code, signal })),
  );
  const over = new AbortController();
  const watching = watch(run, over.signal);

  const first = await Promise.race([exited, spawnFailed.then((e) => ({ error: e }))]);
  over.abort();
  await watching;
  if ('error' in first) {
    closeSync(run.log);
    const reason = first.error.code === 'ENOENT' ? 'not found' : first.error.message;
    return {
      exitCode: null,
      signal: null,
      durationMs: now() - started,
      tail: run.tail,
      stopped: run.stopped,
      watchdog: run.watchdog,
      spawnError: `cannot start ${argv[0]}: ${reason}`,
    };
  }
  await endAttempt(run, lines);
  return {
    exitCode: first.code,
    signal: first.signal,
    durationMs: now() - started,
    tail: run.tail,
    stopped: run.stopped || existsSync(a.stopFile),
    watchdog: run.watchdog,
    ...(run.gaveUp ? { gaveUp: run.gaveUp } : {}),
  };
}

/** The agent, started, and its identity recorded in the run's agent.json (which process group ends with the turn). */
function spawnAgent(a: AttemptInput, argv: string[]) {
  // Its own session and process group: whatever the agent starts is ended with it.
  const child = spawn(argv[0]!, argv.slice(1), {
    cwd: a.cwd,
    // PWD names the worktree, not where lazy was started: opencode (Bun) resolves paths against $PWD
    // before its real working directory, and would edit the user's checkout instead.
    env: { ...a.adapter.env?.(a.input, a.spec), ...env(), ...a.env, PWD: a.cwd },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const spawnFailed = new Promise<NodeJS.ErrnoException>((res) => child.once('error', res));
  if (child.pid)
    writeFileAtomicSync(
      a.agentFile,
      JSON.stringify({ ...identityOf(child.pid), run: a.env.LAZY_RUN, attempt: a.attempt }),
    );
  return { child, spawnFailed };
}

/** The agent's output: to the run log (rotated), into the tail, and its stdout line by line to the adapter. */
function readOutput(run: Running) {
  const { a } = run;
  const lines = lineSplitter((line) => onLine(run, line));
  const write = (text: string, isStdout: boolean) => {
    run.logged += writeSync(run.log, text);
    if (run.logged > LOG_ROTATE_BYTES) {
      closeSync(run.log);
      renameSync(a.logPath, `${a.logPath}.1`);
      run.log = openSync(a.logPath, 'a');
      run.logged = 0;
    }
    run.tail = (run.tail + text).slice(-TAIL_BYTES);
    if (isStdout) lines.push(text);
    else run.lastProgress = now();
  };
  run.child.stdout!.setEncoding('utf8').on('data', (t: string) => write(t, true));
  run.child.stderr!.setEncoding('utf8').on('data', (t: string) => write(t, false));
  return lines;
}

/** The agent CLI is retrying on its own (r), or no longer is (null). */
function retried(run: Running, r: Retrying | null) {
  run.retrying = r !== null;
  run.a.onRetry?.(r);
}

/** One line of stdout (null: one too long to read): progress, a retry the CLI announces, or one too many. */
function onLine(run: Running, line: string | null) {
  const { a } = run;
  if (line === null || a.adapter.parseLine(line, a.state) === 'progress') {
    run.lastProgress = now();
    if (run.retrying) retried(run, null);
    return;
  }
  const e = a.adapter.events(line).find((x) => x.kind === 'retry');
  // The CLI numbers its retries from 1 (the second try): the substate names the try that comes next.
  if (e?.kind === 'retry')
    retried(run, {
      reason: retryReason(e.what),
      attempt: (e.attempt ?? a.state.retry?.count ?? 1) + 1,
      at: nowIso(),
      until: e.delayMs === undefined ? null : new Date(now() + e.delayMs).toISOString(),
    });
  if (
    classOfErrorMessage(a.state.retry?.message) === 'transient_unreachable' &&
    (a.state.retry?.count ?? 0) >= a.unreachableMax &&
    !run.gaveUp
  ) {
    run.gaveUp = `the agent kept retrying an unreachable endpoint (${a.state.retry!.message})`;
    kill(run);
  }
}

/** SIGTERM to the agent's group; watch sends the SIGKILL once the grace is over. */
function kill(run: Running, graceMs = run.a.graceMs) {
  if (run.killAt !== undefined || !run.child.pid) return;
  signalGroup(run.child.pid, 'SIGTERM');
  run.killAt = now() + graceMs;
}

/** The attempt's timers, on the port's clock: the stop request, the watchdog, and a SIGKILL due after its grace. */
async function watch(run: Running, over: AbortSignal): Promise<void> {
  const { a, child } = run;
  while (!over.aborted) {
    // Whoever writes the stop file (`lazy stop`, a worker ending a lost claim) sends its own SIGKILL one grace
    // after its SIGTERM; ours is the backstop for one that died, so stop's report is of its own signal.
    if (!run.stopped && existsSync(a.stopFile)) {
      run.stopped = true;
      kill(run, a.graceMs + STOP_BACKSTOP_MS);
    }
    if (!run.watchdog && now() - run.lastProgress > a.watchdogMs) {
      run.watchdog = true;
      kill(run);
    }
    if (run.killAt !== undefined && !run.killed && now() >= run.killAt) {
      run.killed = true;
      signalGroup(child.pid!, 'SIGKILL');
    }
    const due = run.killAt !== undefined && !run.killed ? Math.max(0, run.killAt - now()) : TICK_MS;
    await poll(Math.min(TICK_MS, due), over).catch(() => undefined);
  }
}

/** The turn ends when the agent exits: what it left running in its group goes too, then its output is drained. */
async function endAttempt(run: Running, lines: ReturnType<typeof lineSplitter>): Promise<void> {
  const leftovers = await endGroup(run.child.pid!, run.a.graceMs);
  if (leftovers.signal !== 'none')
    writeSync(
      run.log,
      `[lazy ${nowIso()}] the agent exited and left processes running; ` + `they were ended with ${leftovers.signal}\n`,
    );
  await drained(run.child, DRAIN_MS);
  lines.end();
  closeSync(run.log);
  if (run.retrying) retried(run, null);
}

/** Feeds complete lines to `onLine`; a line over MAX_LINE is dropped unread (reported as null). */
function lineSplitter(onLine: (line: string | null) => void) {
  let parts: string[] = [];
  let size = 0;
  let overlong = false;
  const flush = (last: string) => {
    onLine(overlong ? null : parts.join('') + last);
    parts = [];
    size = 0;
    overlong = false;
  };
  return {
    push(text: string) {
      let from = 0;
      for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', from)) {
        flush(text.slice(from, nl));
        from = nl + 1;
      }
      if (overlong || from === text.length) return;
      parts.push(text.slice(from));
      size += text.length - from;
      if (size > MAX_LINE) {
        parts = [];
        size = 0;
        overlong = true;
      }
    },
    end() {
      if (parts.length || overlong) flush('');
    },
  };
}

/** Waits for the output pipes to close, at most `ms`: a process that escaped the group may hold them forever. */
async function drained(child: ChildProcess, ms: number): Promise<void> {
  const closed = (s: NodeJS.ReadableStream | null) =>
    new Promise<void>((res) => (!s || (s as { closed?: boolean }).closed ? res() : s.once('close', () => res())));
  const done = new AbortController();
  await Promise.race([
    Promise.all([closed(child.stdout), closed(child.stderr)]),
    sleep(ms, done.signal).catch(() => undefined),
  ]);
  done.abort();
  child.stdout?.destroy();
  child.stderr?.destroy();
}
