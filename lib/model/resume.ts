import type { ChangeView, PendingViolation } from './views.js';
import type { Status } from './status.js';
import { heldCrash, MAX_CONSECUTIVE_INTERRUPTIONS } from './attention.js';
import { parkStatus } from './park.js';
import { isNeutral } from './schedule.js';
import { lastSettled } from './rounds.js';

// One rule for resuming an interrupted task with nobody asked: reconcile's auto-resume on the
// machine it crashed on and a fleet worker's pick on any machine both read it.

/** What the rule reads of a task: a TaskView has it, and the fold has it before the view is whole (pickup.ts). */
export interface ResumeFacts {
  status: Status;
  changelog: readonly ChangeView[];
  consecutive_interruptions: number;
  pending_violations: readonly PendingViolation[];
}

/**
 * The move that interrupted the task, when it may be resumed with nobody asked: a crash or a usage limit under
 * the breaker, or anything a person sent back to the queue since; never with files to decide or a held crash.
 */
export function unattendedResume(v: ResumeFacts): ChangeView | null {
  if (v.status !== 'interrupted') return null;
  const last = lastSettled(v); // what interrupted it, past any repair since
  if (!last || parkStatus(v) === 'conflict' || heldCrash(last)) return null;
  if (requeuedSince(v, last)) return last;
  if (last.trigger !== 'turn_crashed' && last.trigger !== 'usage_limit') return null;
  return v.consecutive_interruptions < MAX_CONSECUTIVE_INTERRUPTIONS ? last : null;
}

/** A person's `lazy queue` after the move: their say-so to resume a stopped task or one the breaker held. */
function requeuedSince(v: Pick<ResumeFacts, 'changelog'>, last: ChangeView): boolean {
  return v.changelog.some((c) => !c.set_aside && isNeutral(c) && c.trigger === 'queue' && c.clock > last.clock);
}
