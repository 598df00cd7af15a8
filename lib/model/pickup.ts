import { lastSettled } from './rounds.js';
import { heldCrash, MAX_CONSECUTIVE_INTERRUPTIONS } from './attention.js';
import { pickable, type Schedule } from './schedule.js';
import { unattendedResume, type ResumeFacts } from './resume.js';

// What a fleet worker may pick, as one predicate: the worker's pick (lib/fleet/pick.ts) and what list, show and
// `list --queued` say of a queued task read the same rule, so a task listed as queued is one a worker will take
// (now, or once it is unpaused or its usage limit resets), and one no worker will take says why instead.

/** What the rule reads of a task: a TaskView has it; the fold has it before the view is whole. */
export interface PickupFacts extends ResumeFacts {
  acceptance: readonly string[];
  schedule: Schedule;
}

/**
 * Why no worker will pick this queued task, whatever the time, until a person acts (short: a status cell carries
 * it; the inbox says what to do); null when one will (now, or once unpaused or past its usage limit's reset), when
 * it is not queued, or while a worker holds it (working).
 */
export function heldFromWorkers(v: PickupFacts): string | null {
  if (!v.schedule.queued) return null;
  if (v.status === 'backlog')
    return v.acceptance.some((a) => a.trim()) ? null : 'no acceptance criterion: no worker starts it';
  if (v.status === 'interrupted' && !v.acceptance.some((a) => a.trim()))
    return 'no acceptance criterion: no worker resumes it';
  if (v.status !== 'interrupted' || unattendedResume(v)) return null;
  const last = lastSettled(v);
  if (v.pending_violations.length)
    return `${v.pending_violations.length} protected file(s) to decide: no worker resumes it`;
  if (last && heldCrash(last)) return 'a crash held for a person: no worker resumes it';
  if (last?.trigger === 'stop') return 'stopped by the user: no worker resumes it';
  if (v.consecutive_interruptions >= MAX_CONSECUTIVE_INTERRUPTIONS)
    return `parked by the crash breaker: ${v.consecutive_interruptions} crashes in a row`;
  return `interrupted by ${last?.trigger ?? 'an unknown move'}: no worker resumes it`;
}

/** A queued backlog task a worker may start now: an acceptance criterion is what a turn is judged by. */
export const startable = (v: PickupFacts, nowMs: number): boolean =>
  v.status === 'backlog' && pickable(v.schedule, nowMs) && !heldFromWorkers(v);

/** A queued task back from a crash or a usage limit (or sent back by a person) that a worker may resume now. */
export const resumable = (v: PickupFacts, nowMs: number): boolean =>
  v.status === 'interrupted' && pickable(v.schedule, nowMs) && !heldFromWorkers(v);
