import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { readJsonFile, writeFileAtomicSync } from '../core/fsutil.js';
import { liveness, selfIdentity, type ProcIdentity } from '../core/proc.js';
import { sanitizeLine } from '../core/sanitize.js';
import { runDir } from './runs.js';
import { now } from '../core/clock.js';

// What a working turn is doing right now, as its agent tells lazy's MCP server: a progress
// line (lazy_update_progress) and a wait on a subtask (lazy_wait). Both live in the run's
// directory, local and never pushed, like the run log. Invariant: the substate is derived
// here and nowhere else, and only for a working task's current run, so a record of an older
// run, or a wait whose server died without clearing it, is never believed.

export const PROGRESS_MAX = 120;

export interface Progress {
  message: string;
  at: string;
}

export interface WaitingOn {
  task: string;
  since: string;
  /** The MCP server process holding the call: a wait whose holder died is over. */
  holder: ProcIdentity;
}

export type Substate =
  { kind: 'agent'; message: string; at: string } | { kind: 'waiting_on'; task: string; since: string; seconds: number };

const files = (lazyDir: string, run: string) => ({
  progress: join(runDir(lazyDir, run), 'progress.json'),
  waiting: join(runDir(lazyDir, run), 'waiting-on.json'),
});

/** One line: whitespace collapsed, controls escaped, at most PROGRESS_MAX characters (a cut is reported, never silent). */
export function progressLine(raw: string): { message: string; truncated: boolean; length: number } {
  const line = sanitizeLine(raw.replace(/\s+/g, ' ').trim());
  const chars = [...line];
  if (chars.length <= PROGRESS_MAX) return { message: line, truncated: false, length: chars.length };
  return { message: chars.slice(0, PROGRESS_MAX - 1).join('') + '…', truncated: true, length: chars.length };
}

/** Records the agent's progress line for its run; returns what was kept. */
export function writeProgress(lazyDir: string, run: string, raw: string, at = now()) {
  const p = progressLine(raw);
  const rec: Progress = { message: p.message, at: new Date(at).toISOString() };
  writeFileAtomicSync(files(lazyDir, run).progress, JSON.stringify(rec));
  return p;
}

/** Marks the run as waiting on a subtask until the returned function is called (however the call settles). */
export function beginWaitOn(lazyDir: string, run: string, task: string, at = now()): () => void {
  const path = files(lazyDir, run).waiting;
  const rec: WaitingOn = { task, since: new Date(at).toISOString(), holder: selfIdentity() };
  writeFileAtomicSync(path, JSON.stringify(rec));
  return () => {
    const cur = readJsonFile<WaitingOn>(path, 64 * 1024);
    if (cur && cur.since === rec.since && cur.holder.pid === rec.holder.pid) rmSync(path, { force: true });
  };
}

/** The substate of a task's running turn on this machine: a live wait first, then the last progress line. */
export function substateOf(
  lazyDir: string,
  t: { status: string; current_run: string | null },
  at = now(),
): Substate | null {
  if (t.status !== 'working' || !t.current_run) return null;
  const f = files(lazyDir, t.current_run);
  const w = readJsonFile<WaitingOn>(f.waiting, 64 * 1024);
  if (w && typeof w.task === 'string' && w.holder && liveness(w.holder) !== 'dead') {
    const seconds = Math.max(0, Math.round((at - Date.parse(w.since)) / 1000));
    return { kind: 'waiting_on', task: w.task, since: w.since, seconds };
  }
  const p = readJsonFile<Progress>(f.progress, 64 * 1024);
  return p && typeof p.message === 'string' ? { kind: 'agent', message: p.message, at: p.at } : null;
}

/** "2m10s", "45s", "1h05m": how long a wait has lasted. */
export function waitedFor(seconds: number): string {
  if (seconds < 60) return `${seconds}s`;
  const m = Math.floor(seconds / 60);
  if (m < 60) return `${m}m${String(seconds % 60).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}

/** The words inside `working (…)`: "agent: running migration 3/7" or "waiting on ab12cd34 2m10s". */
export function substateLabel(s: Substate): string {
  return s.kind === 'agent' ? `agent: ${s.message}` : `waiting on ${s.task} ${waitedFor(s.seconds)}`;
}
