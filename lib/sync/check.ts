import { LazyError } from '../core/errors.js';
import { isTaskId } from '../core/ids.js';
import type { TaskReader, TaskRead } from '../store/read.js';
import { ENTRY_DIRS, TASK_ENTRY_HARD_LIMIT } from '../store/layout.js';
import { maxClock } from '../model/fold.js';
import { CONFIG_REF, TASKS_NS, ARCHIVE_NS } from '../core/names.js';

// What may travel between clones, checked the same way in both directions: a pull
// refuses what fails here, and a push never sends it. One piece of code for both.

export interface Rejected {
  id: string;
  reason: string;
  details: Record<string, unknown>;
}

const MAX_CLOCK_JUMP = 1_000_000;

export type Candidate = { id: string; tip: string; ref: string };

/**
 * Refs under refs/lazy/ that travel: refs/lazy/config and refs/lazy/tasks/<task id>; anything else is refused by name.
 */
export function refusedName(ref: string, label = ref): Rejected | null {
  if (ref === CONFIG_REF || /^[0-9a-z]$/.test(ref.startsWith(ARCHIVE_NS) ? ref.slice(ARCHIVE_NS.length) : ''))
    return null;
  if (!ref.startsWith(TASKS_NS))
    return {
      id: ref,
      reason: `not a lazy ref (only ${TASKS_NS}<id>, ${ARCHIVE_NS}<shard> and ${CONFIG_REF} travel)`,
      details: { ref: label },
    };
  const id = ref.slice(TASKS_NS.length);
  return isTaskId(id) ? null : { id, reason: 'not a task id', details: { ref: label } };
}

/** Reads and checks tasks: object types, tree layout, schemas, invariants, size and clock. */
export async function checkTasks(reader: TaskReader, list: Candidate[]): Promise<Map<string, TaskRead | Rejected>> {
  if (list.length === 0) return new Map();
  const read = await reader.readMany(list);
  const out = new Map<string, TaskRead | Rejected>();
  for (const t of list) {
    const r = read.get(t.id)!;
    if (r instanceof LazyError) {
      out.set(t.id, { id: t.id, reason: r.message, details: { ref: t.ref, ...r.details } });
      continue;
    }
    const size = ENTRY_DIRS.reduce((n, d) => n + (r.snap.dirs.get(d)?.length ?? 0), 0);
    // A clock far beyond the history that backs it would crowd out every later entry.
    const clock = maxClock(r.docs);
    if (size > TASK_ENTRY_HARD_LIMIT)
      out.set(t.id, {
        id: t.id,
        reason: `has ${size} entries, more than ${TASK_ENTRY_HARD_LIMIT}`,
        details: { ref: t.ref },
      });
    else if (clock > MAX_CLOCK_JUMP * (size + 1))
      out.set(t.id, {
        id: t.id,
        reason: `its Lamport clock ${clock} jumps too far for ${size} entries`,
        details: { ref: t.ref },
      });
    else out.set(t.id, r);
  }
  return out;
}

export const isRejected = (r: TaskRead | Rejected): r is Rejected => 'reason' in r;
