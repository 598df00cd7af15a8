import { isNeutral, type ChangeView } from './views.js';
import { isRoundMove } from './rounds.js';

// Where a task stands in the fleet's queue, derived from its changelog: queue, unqueue,
// pause and unpause are status-neutral entries (from === to) in the same changelog as
// every move, so a merge of two clones' histories settles them like any other change.

export interface Claim {
  /** The host whose worker claimed the task (by compare-and-swap on the remote). */
  host: string;
  /** The lease's expiry as recorded at the claim; renewals live in the remote's lease ref. */
  lease_until: string;
  run: string | null;
}

export interface Schedule {
  /** A worker may pick it: queued, and still a backlog task or a fleet task back from a crash. */
  queued: boolean;
  /** Higher runs first; equal priorities run oldest first. Kept when unqueued, so a re-queue keeps it. */
  priority: number;
  /** Held: not picked by a worker and not auto-resumed, until unpaused or moved by a person. */
  paused: boolean;
  /** A usage limit's reset: every worker skips the task until then. */
  not_before: string | null;
  /** The fleet claim the task is working under, while it is. */
  claim: Claim | null;
  /**
   * Queued, but no worker will pick it until a person acts, and why (the crash breaker, a stop, a crash held for a
   * person, protected files to decide, no acceptance criterion); null otherwise. The fold sets it from the rule the
   * worker's pick reads (lib/model/pickup.ts).
   */
  held: string | null;
}

export { isNeutral } from './views.js';

export const NO_SCHEDULE: Schedule = {
  queued: false,
  priority: 0,
  paused: false,
  not_before: null,
  claim: null,
  held: null,
};

export function scheduleOf(changelog: readonly ChangeView[]): Schedule {
  const s: Schedule = { ...NO_SCHEDULE };
  for (const c of changelog) {
    // A follow-up's or a repair's start and end are neither a launch nor a settling move: a round leaves the task
    // queued, paused or waiting for a usage limit's reset as it found it.
    if (c.set_aside || isRoundMove(c)) continue;
    if (isNeutral(c)) neutral(s, c);
    else moved(s, c);
  }
  return s;
}

function neutral(s: Schedule, c: ChangeView): void {
  if (c.trigger === 'queue') {
    s.queued = true;
    if (typeof c.details?.priority === 'number') s.priority = c.details.priority;
  } else if (c.trigger === 'unqueue') s.queued = false;
  else if (c.trigger === 'pause') s.paused = true;
  else if (c.trigger === 'unpause') s.paused = false;
}

// Invariant: a fleet task stays queued through its claims and crashes; any other move
// (a person's start, resume or unblock, a finished turn) takes it out of the queue.
function moved(s: Schedule, c: ChangeView): void {
  s.paused = false;
  s.not_before = null;
  s.claim = null;
  if (c.status === 'working') {
    const claim = claimOf(c);
    if (claim) s.claim = claim;
    else s.queued = false;
  } else if (c.status === 'interrupted') {
    if (c.trigger === 'usage_limit' && typeof c.details?.not_before === 'string') s.not_before = c.details.not_before;
  } else s.queued = false;
}

function claimOf(c: ChangeView): Claim | null {
  const d = c.details?.claim;
  if (!d || typeof d !== 'object' || Array.isArray(d)) return null;
  const until = d.lease_until;
  if (typeof until !== 'string') return null;
  return { host: typeof d.host === 'string' ? d.host : (c.host ?? ''), lease_until: until, run: c.run };
}

/** Whether a worker may pick the task now (status aside: the picker checks that against the table). */
export function pickable(s: Schedule, nowMs: number): boolean {
  return s.queued && !s.paused && (s.not_before === null || Date.parse(s.not_before) <= nowMs);
}

/** Queue order: higher priority first, then oldest first, then by id (a total order every worker agrees on). */
export function byQueueOrder(
  a: { priority: number; created_at: string; id: string },
  b: { priority: number; created_at: string; id: string },
): number {
  return (
    b.priority - a.priority ||
    (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0) ||
    (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
  );
}

/**
 * The one line every human surface (list, show, watch) prints for a task's place in the queue,
 * or null when it has none: "queued, priority 2, paused", "waiting for the usage limit until 14:05";
 * a queued task no worker will pick says why instead of "queued" ("parked by the crash breaker: …").
 */
export function queueLabel(s: Schedule, nowMs: number): string | null {
  const parts: string[] = [];
  if (s.held) parts.push(s.held);
  else if (s.queued) parts.push(`queued, priority ${s.priority}`);
  if (s.paused) parts.push('paused');
  if (s.not_before !== null && Date.parse(s.not_before) > nowMs)
    parts.push(`waiting for the usage limit until ${localTime(s.not_before, nowMs)}`);
  if (s.claim) parts.push(`claimed by ${s.claim.host}`);
  return parts.length ? parts.join(', ') : null;
}

/** Local HH:MM, with the date in front when it is not today's. */
function localTime(iso: string, nowMs: number): string {
  const d = new Date(iso);
  const now = new Date(nowMs);
  const p = (n: number) => String(n).padStart(2, '0');
  const hm = `${p(d.getHours())}:${p(d.getMinutes())}`;
  const sameDay =
    d.getFullYear() === now.getFullYear() && d.getMonth() === now.getMonth() && d.getDate() === now.getDate();
  return sameDay ? hm : `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${hm}`;
}
