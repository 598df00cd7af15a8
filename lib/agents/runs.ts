import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readJsonFile, readTail, writeFileAtomicSync } from '../core/fsutil.js';
import { withLock } from '../core/lock.js';
import { now, nowIso, sleep } from '../core/clock.js';
import type { ProcIdentity } from '../core/proc.js';
import type { Status } from '../model/status.js';
import type { AgentSpec } from './adapters/adapter.js';
import type { Outcome } from './supervisor/outcome/types.js';
import type { AgentIdentity } from './supervisor/kill.js';
import type { WorktreeSnapshot } from '../workspace/ask-snapshot.js';

// Local, never-pushed bookkeeping for turns running on this machine: one directory per
// run (record, prompt, output log, heartbeat, outcome). The task ref stays the truth about
// status; these files hold what only this host can know (process identities, logs). The
// marker that lets reconcile find a run without a scan is beside the locks (lib/store/markers.ts).

/** follow_up and repair work like a work turn but, like an ask, return the task to `restore` however they end. */
export type RunKind = 'work' | 'ask' | 'follow_up' | 'repair';

export interface RunRecord {
  id: string;
  task: string;
  kind: RunKind;
  /** Sequence of the turn that launched this run, exposed to the agent as LAZY_TURN. */
  turn: number;
  session: string;
  agent: AgentSpec;
  /** The model the agent runs with (the task's, else agents.<name>.model); absent: the CLI's default. */
  model?: string;
  agent_session_id: string | null;
  worktree: string;
  /** The branch the task's work is reviewed against (its upstream). */
  base: string;
  /** Merge this branch into the task branch before the agent starts (clean worktree only). */
  merge_upstream: string | null;
  /** Feedback turns this run's prompt delivers; consumed only if it completes normally. */
  consumes: string[];
  /** For ask, follow_up and repair: the status to restore when the turn ends, however it ends. */
  restore: Status | null;
  /** For ask: the worktree's uncommitted state when it started (what it leaves beyond that is set aside). */
  snapshot?: WorktreeSnapshot | null;
  created_at: string;
  host: string;
  launcher: ProcIdentity;
  supervisor: ProcIdentity | null;
  /**
   * When the launcher asked for the supervisor (written just before it spawns one). Absent with no supervisor
   * recorded: none was ever spawned, so a dead launcher's run never started (lib/reconcile/dead-run.ts).
   */
  spawned_at?: string;
  /**
   * Launched by a fleet worker (lazy work): a usage limit with a named reset ends the turn and
   * sends the task back to the queue (trigger usage_limit) instead of waiting in the supervisor.
   */
  fleet?: boolean;
}

export const runsDir = (lazyDir: string) => join(lazyDir, 'runs');
export const runDir = (lazyDir: string, run: string) => join(runsDir(lazyDir), run);

export const runFiles = (dir: string) => ({
  record: join(dir, 'run.json'),
  prompt: join(dir, 'prompt.txt'),
  log: join(dir, 'output.log'),
  heartbeat: join(dir, 'heartbeat'),
  agent: join(dir, 'agent.json'),
  outcome: join(dir, 'outcome.json'),
  stop: join(dir, 'stop'),
  session: join(dir, 'session.txt'),
});

/** Run files sit where an agent could reach them: read bounded and from regular files only, like any outside input. */
const readJson = <T>(path: string) => readJsonFile<T>(path, 64 * 1024 * 1024);

export function writeRun(lazyDir: string, rec: RunRecord, prompt?: string): void {
  const dir = runDir(lazyDir, rec.id);
  mkdirSync(dir, { recursive: true });
  if (prompt !== undefined) writeFileAtomicSync(runFiles(dir).prompt, prompt);
  writeFileAtomicSync(runFiles(dir).record, JSON.stringify(rec, null, 2));
}

export const readRun = (lazyDir: string, run: string) => readJson<RunRecord>(runFiles(runDir(lazyDir, run)).record);
export const readOutcome = (lazyDir: string, run: string) => readJson<Outcome>(runFiles(runDir(lazyDir, run)).outcome);
export const readAgentIdentity = (lazyDir: string, run: string) =>
  readJson<AgentIdentity & { attempt: number }>(runFiles(runDir(lazyDir, run)).agent);

export function writeOutcome(lazyDir: string, o: Outcome): void {
  writeFileAtomicSync(runFiles(runDir(lazyDir, o.run)).outcome, JSON.stringify(o, null, 2));
}

/**
 * The outcome of a run whose supervisor will not write one (it died, or never started the agent), made and written
 * once. Invariant: under the run's lock, so of two processes settling the same run one makes and writes it; the
 * other gets what was written (`wrote` false), and recording it is the writer's.
 */
export async function writeOutcomeOnce(
  lazyDir: string,
  run: string,
  make: () => Promise<Outcome>,
): Promise<{ outcome: Outcome; wrote: boolean }> {
  return withLock(lazyDir, `run-${run}`, async () => {
    const written = readOutcome(lazyDir, run);
    if (written) return { outcome: written, wrote: false };
    const outcome = await make();
    writeOutcome(lazyDir, outcome);
    return { outcome, wrote: true };
  });
}

/** An interrupted turn with no agent result to read: `reason` says why, `logs` is what its log held. */
export function unreadOutcome(rec: RunRecord, reason: string, logs: string[]): Outcome {
  const at = nowIso();
  return {
    run: rec.id,
    task: rec.task,
    kind: 'interrupted',
    ended_at: at,
    attempts: 0,
    summary: reason,
    interrupt: { reason, exit_code: null, signal: null, logs, at },
  };
}

/** Sets a file's mtime to the port's clock (creating it when missing): heartbeats are judged by the same clock. */
export function touch(path: string): void {
  const at = new Date(now());
  try {
    utimesSync(path, at, at);
  } catch {
    writeFileSync(path, '');
    utimesSync(path, at, at);
  }
}

/** Touches the heartbeat file every HEARTBEAT_MS of the port's clock until `stop` aborts. */
export async function heartbeat(path: string, stop: AbortSignal): Promise<void> {
  while (!stop.aborted) {
    await sleep(HEARTBEAT_MS, stop).catch(() => undefined);
    if (!stop.aborted) touch(path);
  }
}
const HEARTBEAT_MS = 2000;

/** What `show`, `watch` and interrupt diagnostics read of a run's log: its last 64 KiB at most. */
export const LOG_TAIL_BYTES = 64 * 1024;

/** Last n lines of a run's output log (within its last LOG_TAIL_BYTES; a line cut there is dropped). */
export function logTail(lazyDir: string, run: string, n = 50): string[] {
  let tail: { text: string; cut: boolean };
  try {
    tail = readTail(runFiles(runDir(lazyDir, run)).log, LOG_TAIL_BYTES);
  } catch {
    return [];
  }
  if (!tail.text) return [];
  const lines = tail.text.replace(/\n$/, '').split('\n');
  if (tail.cut && lines.length > 1) lines.shift();
  return lines.slice(-n);
}
