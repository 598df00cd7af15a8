import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { readJsonFile, writeFileAtomicSync } from '../core/fsutil.js';
import { liveness, selfIdentity, type ProcIdentity } from '../core/proc.js';
import { sanitizeLine } from '../core/sanitize.js';
import { runDir } from './runs.js';
import { now, nowIso } from '../core/clock.js';

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

/** A retry in progress: the supervisor's sleep before its next attempt, or the agent CLI's own (api_retry). */
export interface Retrying {
  /** What is retried: "rate limit", "overloaded", … */
  reason: string;
  /** The attempt that comes next. */
  attempt: number;
  at: string;
  /** When it is due; null when the agent did not say. */
  until: string | null;
}

export type Substate =
  | { kind: 'agent'; message: string; at: string }
  | { kind: 'waiting_on'; task: string; since: string; seconds: number }
  | ({ kind: 'retrying' } & Retrying);

const files = (lazyDir: string, run: string) => ({
  progress: join(runDir(lazyDir, run), 'progress.json'),
  waiting: join(runDir(lazyDir, run), 'waiting-on.json'),
  retrying: join(runDir(lazyDir, run), 'retrying.json'),
  waited: join(runDir(lazyDir, run), 'waited.json'),
});

const CLASS_WORDS: Record<string, string> = {
  transient_overload: 'overloaded',
  transient_network: 'network error',
  transient_unreachable: 'endpoint unreachable',
  unknown: 'unrecognised failure',
};

/** The few words a retry is shown with: the failure's text first (a 429 is a rate limit whatever its class), then its class. */
export function retryReason(text: string, cls?: string): string {
  if (/rate.?limit|\b429\b/i.test(text)) return 'rate limit';
  if (/overload|\b529\b/i.test(text)) return 'overloaded';
  return (cls && CLASS_WORDS[cls]) || progressLine(text).message.slice(0, 60) || 'error';
}

/**
 * Records that the run is retrying; the retry's end (the next attempt, progress, the turn's end) clears it.
 * Best effort, as a display: a file that cannot be written must not end the turn it describes.
 */
export function writeRetrying(lazyDir: string, run: string, r: Retrying): void {
  try {
    writeFileAtomicSync(files(lazyDir, run).retrying, JSON.stringify(r));
  } catch {
    /* shown as no substate */
  }
}

export function clearRetrying(lazyDir: string, run: string): void {
  try {
    rmSync(files(lazyDir, run).retrying, { force: true });
  } catch {
    /* a record left behind is believed only while this run is the working task's current one */
  }
}

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
    recordWait(lazyDir, run, { task, since: rec.since, until: nowIso() });
  };
}

/** A wait that ended: kept in the run's folder until the turn ends, when its outcome carries the total (waitedSeconds). */
type Waited = { task: string; since: string; until: string };

function recordWait(lazyDir: string, run: string, w: Waited): void {
  const path = files(lazyDir, run).waited;
  try {
    const all = readJsonFile<Waited[]>(path, 1024 * 1024) ?? [];
    writeFileAtomicSync(path, JSON.stringify([...all, w]));
  } catch {
    /* the turn's agent time then counts the wait: a file that cannot be written must not fail the tool call */
  }
}

/**
 * The seconds a run spent waiting on subtasks: the union of its ended waits and one still open (to `at`), so two
 * waits at once count once. The turn's outcome records it (details.waited_seconds): its agent time leaves it out.
 */
export function waitedSeconds(lazyDir: string, run: string, at = now()): number {
  const f = files(lazyDir, run);
  const spans = (readJsonFile<Waited[]>(f.waited, 1024 * 1024) ?? []).map((w) => [
    Date.parse(w.since),
    Date.parse(w.until),
  ]);
  const open = readJsonFile<WaitingOn>(f.waiting, 64 * 1024);
  if (open) spans.push([Date.parse(open.since), at]);
  let total = 0;
  let reach = -Infinity;
  for (const [a, b] of spans
    .filter(([a, b]) => Number.isFinite(a) && Number.isFinite(b))
    .sort((x, y) => x[0]! - y[0]!)) {
    const from = Math.max(a!, reach);
    if (b! > from) total += b! - from;
    reach = Math.max(reach, b!);
  }
  return Math.round(total) / 1000; // to the millisecond: a short wait is still a wait
}

/** The substate of a task's running turn on this machine: a retry first, then a live wait, then the last progress line. */
export function substateOf(
  lazyDir: string,
  t: { status: string; current_run: string | null },
  at = now(),
): Substate | null {
  if (t.status !== 'working' || !t.current_run) return null;
  const f = files(lazyDir, t.current_run);
  const r = readJsonFile<Retrying>(f.retrying, 64 * 1024);
  if (r && typeof r.reason === 'string' && typeof r.attempt === 'number')
    return { kind: 'retrying', reason: r.reason, attempt: r.attempt, at: r.at, until: r.until ?? null };
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

/** The words inside `working (…)`: "agent: running migration 3/7", "waiting on ab12cd34 2m10s" or "retrying: rate limit, attempt 2 in 20 s". */
export function substateLabel(s: Substate, at = now()): string {
  if (s.kind === 'agent') return `agent: ${s.message}`;
  if (s.kind === 'waiting_on') return `waiting on ${s.task} ${waitedFor(s.seconds)}`;
  const left = s.until === null ? null : Math.max(0, Math.ceil((Date.parse(s.until) - at) / 1000));
  return `retrying: ${s.reason}, attempt ${s.attempt}${left === null ? '' : ` in ${left} s`}`;
}
