import type { EntryKind } from '../model/docs.js';

// Where things live. One ref per task; inside its commit tree, the task record,
// session records, and one append-only file per entry named by Lamport clock and id.

export const TASK_FILE = 'task.yaml';
export const SESSIONS_DIR = 'sessions';
export const ENTRY_DIRS: readonly EntryKind[] = ['turns', 'changelog', 'violations', 'decisions'];
export const CONFIG_FILE = 'config.yaml';

const CLOCK_WIDTH = 10;
export const entryName = (clock: number, id: string) => `${String(clock).padStart(CLOCK_WIDTH, '0')}-${id}.yaml`;
export const sessionName = (id: string) => `${id}.yaml`;

const ENTRY_RE = /^(\d{10,})-([0-9a-z]{8})\.yaml$/;
export function parseEntryName(name: string): { clock: number; id: string } | undefined {
  const m = ENTRY_RE.exec(name);
  return m ? { clock: Number(m[1]), id: m[2]! } : undefined;
}

/**
 * Git's null object id: as update-ref's old value it means "the ref must not exist yet"; in a reflog, "there was no
 * ref".
 */
export const ZERO_OID = '0000000000000000000000000000000000000000';

/**
 * The most entries one task takes from writers that grow it (comments, turns):
 * reading a task costs time in proportion to its entries. Writes that end a turn or the
 * task (an outcome, stop, accept, close, reject, decisions) still land, and pull refuses a
 * task holding more than the hard limit, which leaves them room.
 */
export const TASK_ENTRY_LIMIT = 5_000;
export const TASK_ENTRY_HARD_LIMIT = 6_000;
