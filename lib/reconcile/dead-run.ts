import { liveness, type ProcIdentity } from '../core/proc.js';
import { fileSystemNow, now } from '../core/clock.js';
import type { ActiveMarker } from '../store/markers.js';
import type { ChangeView } from '../model/views.js';
import { runDir, runFiles, type RunRecord } from '../agents/runs.js';
import { statSync } from 'node:fs';

// Whether a turn marker's run can still be finished by a process of its own: one judgement, so every command's
// reconcile and lazy doctor (lib/ops/doctor/markers.ts) agree on which turns are dead. A live process is never
// judged: a claim or a launch in progress is left to finish, whatever a concurrent command finds.

/** Whether a process is gone for good, by the caller's standard of proof. */
export type Gone = (p: ProcIdentity) => boolean;

/** How long a supervisor's heartbeat (touched every 2 s) may be silent before one nobody can check is gone. */
export const SILENT_MS = 60_000;

/**
 * Reconcile's standard for a run: dead here, or a supervisor this process cannot check (another pid namespace:
 * a container recreated with its clone, or one beside this one) whose heartbeat has been silent for SILENT_MS by
 * the file system's clock. A live supervisor anywhere on this clone's disk keeps its heartbeat fresh.
 */
export const deadOrSilent =
  (lazyDir: string, rec: RunRecord | undefined): Gone =>
  (p) => {
    const l = liveness(p);
    if (l !== 'unknown') return l === 'dead';
    if (!rec?.supervisor || p !== rec.supervisor) return false;
    try {
      return fileSystemNow() - statSync(runFiles(runDir(lazyDir, rec.id)).heartbeat).mtimeMs > SILENT_MS;
    } catch {
      return false;
    }
  };

/**
 * A launch's own steps finish within this: a supervisor it spawned records itself (its first act), and the commit
 * that moves the task into working lands (a git the killed launcher started may still be writing it).
 */
export const LAUNCH_GRACE_MS = 5000;

/** The process that answers for a run: its supervisor once one is recorded, else the process that launched it. */
export const runOwner = (m: ActiveMarker, rec: RunRecord | undefined): ProcIdentity =>
  rec ? (rec.supervisor ?? rec.launcher) : m.owner;

/**
 * Whether nothing of a turn marker's run can act any more: the process that answers for it is gone, and no
 * supervisor its launcher spawned may still be starting. A launch records when it spawns one (`spawned_at`), so
 * a launcher killed before that (in its claim push, say) left none.
 */
export function runGone(m: ActiveMarker, rec: RunRecord | undefined, gone: Gone): boolean {
  if (!gone(runOwner(m, rec))) return false;
  const starting = !!rec && !rec.supervisor && !!rec.spawned_at && now() - Date.parse(rec.spawned_at) < LAUNCH_GRACE_MS;
  return !starting;
}

/** Whether the task took the run: a move into working names it (a launch killed before its commit made none). */
export const tookRun = (v: { changelog: readonly ChangeView[] }, run: string): boolean =>
  v.changelog.some((c) => c.run === run && c.status === 'working');
