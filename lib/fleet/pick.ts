import type { TaskView } from '../model/fold.js';
import { byQueueOrder, pickable } from '../model/schedule.js';
import { unattendedResume } from '../model/resume.js';
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

/** A queued backlog task a worker may start: an acceptance criterion is what a turn is judged by. */
export const startable = (v: TaskView, nowMs: number) =>
  v.status === 'backlog' && pickable(v.schedule, nowMs) && v.acceptance.some((a) => a.trim());

/** A queued task back from a crash or a usage limit (or sent back by a person) that a worker may resume. */
export const resumable = (v: TaskView, nowMs: number) => pickable(v.schedule, nowMs) && !!unattendedResume(v);

/** A working task whose worker's lease expired: the claim belongs to a dead machine. */
export const takeable = (v: TaskView, lease: Lease | null, nowMs: number): lease is Lease =>
  v.status === 'working' && !!lease?.doc && lease.doc.task === v.id && expired(lease.doc, nowMs);

/** Every task this worker may take now, best first; `busy` are the tasks it runs already. */
export function candidates(
  views: Iterable<TaskView>,
  leases: Map<string, Lease>,
  nowMs: number,
  busy: Set<string>,
): Pick[] {
  const out: (Pick & { priority: number; created_at: string })[] = [];
  for (const v of views) {
    if (busy.has(v.id)) continue;
    const lease = leases.get(v.id) ?? null;
    const kind: PickKind | null = startable(v, nowMs)
      ? 'start'
      : resumable(v, nowMs)
        ? 'resume'
        : takeable(v, lease, nowMs)
          ? 'takeover'
          : null;
    if (kind) out.push({ id: v.id, kind, lease, priority: v.schedule.priority, created_at: v.created_at });
  }
  return out.sort(byQueueOrder).map(({ id, kind, lease }) => ({ id, kind, lease }));
}
