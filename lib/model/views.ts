import type { Actor, Person } from '../core/actor.js';
import type { Json } from '../core/json.js';
import type { Status } from './status.js';
import type { TurnEntry } from './docs.js';

// How one turn, one status change and one pending protected file read once folded: what
// the fold (fold.ts) builds and attention and the table's guards read. Apart from fold.ts
// so that neither attention.ts nor table.ts imports the module that imports them.

export interface TurnView {
  sequence: number;
  id: string;
  clock: number;
  role: TurnEntry['role'];
  kind: TurnEntry['kind'];
  actor: Actor;
  person: Person | null;
  content: string;
  timestamp: string;
  feedback: 'pending' | 'consumed' | null;
  session: string | null;
  run: string | null;
  details: { [k: string]: Json } | null;
}

export interface ChangeView {
  id: string;
  clock: number;
  status: Status;
  from: Status | null;
  trigger: string;
  actor: Actor;
  person: Person | null;
  timestamp: string;
  reason: string;
  host: string | null;
  /** The clone it was made in (lib/core/place.ts); null on entries older than clone ids. */
  clone: string | null;
  /** The run a move into or out of working belongs to. */
  run: string | null;
  details: { [k: string]: Json } | null;
  set_aside: boolean;
}

/** A protected file a turn touched that still waits for an approve or revert decision. */
export interface PendingViolation {
  file: string;
  run: string;
  commit: string;
  base: string;
  since: string;
}

/**
 * A status-neutral entry: queue, unqueue, pause, unpause. It never changes a status, attention or the breaker. A
 * budget reached on a blocked task (blocked → blocked) is not one: it is what the task's attention says from then on.
 */
export const isNeutral = (c: Pick<ChangeView, 'from' | 'status'> & { trigger?: string }) =>
  c.from === c.status && c.trigger !== 'budget';

/** The latest status change a merge did not set aside (into `status`, when given); queue entries move nothing. */
export function lastChange(v: { changelog: readonly ChangeView[] }, status?: Status): ChangeView | undefined {
  for (let i = v.changelog.length - 1; i >= 0; i--) {
    const c = v.changelog[i]!;
    if (!c.set_aside && !isNeutral(c) && (status === undefined || c.status === status)) return c;
  }
  return undefined;
}
