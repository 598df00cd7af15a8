import { LazyError } from '../core/errors.js';
import { isTaskId } from '../core/ids.js';
import { parseCommit } from '../store/objects.js';
import { trailerOf } from '../store/listing/summary.js';
import type { TaskReader, TaskRead } from '../store/read.js';
import { ENTRY_DIRS, TASK_ENTRY_HARD_LIMIT } from '../store/layout.js';
import { foldTask, maxClock } from '../model/fold.js';
import { isTerminal } from '../model/status.js';
import { readMapLines, SHARDS, type ArchiveMap } from '../store/archive/map.js';
import { CONFIG_REF, TASKS_NS, ARCHIVE_NS, archiveRef } from '../core/names.js';

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

/**
 * An archive commit of `shard` that may travel: every line of its map is an entry (a task id of the shard, a tip),
 * and every entry new or changed against `known` (the map this clone holds, or the remote's) is a commit whose
 * Lazy-Task names it. An entry that decides something here (`acts`: its id is live here, or archived here at another
 * tip, so the pull drops or merges a ref for it; all when not given) also reads as a task at its tip, passes
 * checkTasks, and folds to a finished status, the one the map says. Else the shard is refused whole. The others,
 * tasks this clone never held, are checked as every stored document is, when read (show, log, list --all, doctor's
 * archive_entry_wrong): a first pull of 99,000 archived tasks does not fold them all.
 */
export async function checkShard(
  reader: TaskReader,
  shard: string,
  commit: string,
  known: ArchiveMap,
  acts?: (id: string) => boolean,
): Promise<Rejected | null> {
  const ref = archiveRef(shard);
  const refuse = (reason: string, more: Record<string, unknown> = {}): Rejected => ({
    id: ref,
    reason,
    details: { ref, commit, ...more },
  });
  if (!SHARDS.includes(shard)) return refuse('not an archive shard');
  const { map, bad } = await readMapLines(reader.objects, commit, shard);
  if (bad.length) return refuse(`its map has ${bad.length} malformed line(s)`, { lines: bad.slice(0, 5) });
  const changed = [...map.values()].filter(
    (a) => known.get(a.id)?.tip !== a.tip || known.get(a.id)?.status !== a.status,
  );
  const deciding = changed.filter((a) => !acts || acts(a.id) || known.has(a.id));
  const checked = await checkTasks(
    reader,
    deciding.map((a) => ({ id: a.id, tip: a.tip, ref })),
  );
  const commits = await reader.objects.readMany(changed.map((a) => a.tip));
  for (const [i, a] of changed.entries()) {
    const c = commits[i];
    const named = c?.type === 'commit' ? trailerOf(parseCommit(c.data).message, 'Lazy-Task') : undefined;
    if (named !== a.id)
      return refuse(`archived task ${a.id}: its tip's Lazy-Task is ${named ?? 'missing'}`, { task: a.id, tip: a.tip });
    const r = checked.get(a.id);
    if (!r) continue;
    if (isRejected(r)) return refuse(`archived task ${a.id}: ${r.reason}`, { task: a.id, tip: a.tip });
    const status = foldTask(r.docs).status;
    if (status !== a.status || !isTerminal(status))
      return refuse(`archived task ${a.id} folds to ${status}, the map says ${a.status}`, { task: a.id, tip: a.tip });
  }
  return null;
}
