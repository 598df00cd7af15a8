import type { TaskView } from '../model/fold.js';
import { byQueueOrder } from '../model/schedule.js';
import { startable, resumable } from '../model/pickup.js';
import { expired, type Lease } from './lease.js';

// What a worker may take, in the one queue order every worker agrees on (byQueueOrder):
// a queued backlog task (start), a queued fleet task back from a crash (auto-resume, under
// the breaker), and a task whose worker's lease ran out (takeover, then auto-resume).

export type PickKind = 'start' | 'resume' | 'takeover';

export interface Pick {
  id: string;
  kind: PickKind;
  /** The lease the remote holds for the task (a takeover replaces it by compare-and-swap). */
  lease: Lease | null;
}

// One rule for what a worker may start or resume, shared with what list and show say of a queued task.
export { startable, resumable };

/** How far past a fresh lease's end another machine's clock may put a sound lease's `until`. */
export const SKEW_MS = 60_000;

/** The longest lease length a lease may claim for itself (a day): beyond it, only this worker's own counts. */
export const MAX_LEASE_MS = 24 * 3600_000;

/**
 * Why a lease can be neither renewed nor taken over by any worker (a person breaks it: lazy stop --force), or null
 * for a sound one: unreadable, naming another task, or running out later than any renewal could have set.
 */
export function leaseFault(id: string, lease: Lease, nowMs: number, leaseMs: number): string | null {
  if (!lease.doc) return 'its lease is unreadable';
  if (lease.doc.task !== id) return `its lease names task ${lease.doc.task}`;
  const until = Date.parse(lease.doc.until);
  // Judged by the longer of this worker's lease and the one the lease says it is renewed by (up to a day).
  const span = Math.max(leaseMs, Math.min(lease.doc.lease_ms ?? 0, MAX_LEASE_MS));
  if (!(until <= nowMs + span + SKEW_MS)) return `its lease runs until ${lease.doc.until}, past any renewal`;
  return null;
}

/** A working task whose worker's lease expired: the claim belongs to a dead machine. */
export const takeable = (v: TaskView, lease: Lease | null, nowMs: number, leaseMs: number): lease is Lease =>
  v.status === 'working' && !!lease && !leaseFault(v.id, lease, nowMs, leaseMs) && expired(lease.doc!, nowMs);

/** Working fleet tasks no worker can take over: their lease is faulty, or gone while the claim stands. */
export function pinnedTasks(
  views: Iterable<TaskView>,
  leases: Map<string, Lease>,
  nowMs: number,
  leaseMs: number,
): { id: string; why: string }[] {
  const out: { id: string; why: string }[] = [];
  for (const v of views) {
    if (v.status !== 'working') continue;
    const lease = leases.get(v.id);
    const why = lease ? leaseFault(v.id, lease, nowMs, leaseMs) : v.schedule.claim ? 'its lease is gone' : null;
    if (why) out.push({ id: v.id, why });
  }
  return out;
}

/** Every task this worker may take now, best first; `busy` are the tasks it runs already. */
export function candidates(
  views: Iterable<TaskView>,
  leases: Map<string, Lease>,
  nowMs: number,
  busy: Set<string>,
  leaseMs: number,
): Pick[] {
  const out: (Pick & { priority: number; created_at: string })[] = [];
  for (const v of views) {
    if (busy.has(v.id)) continue;
    const lease = leases.get(v.id) ?? null;
    const kind: PickKind | null = startable(v, nowMs)
      ? 'start'
      : resumable(v, nowMs)
        ? 'resume'
        : takeable(v, lease, nowMs, leaseMs)
          ? 'takeover'
          : null;
    if (kind) out.push({ id: v.id, kind, lease, priority: v.schedule.priority, created_at: v.created_at });
  }
  return out.sort(byQueueOrder).map(({ id, kind, lease }) => ({ id, kind, lease }));
}
