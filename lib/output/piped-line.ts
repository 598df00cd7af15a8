import { oneCell, printable } from '../core/sanitize.js';
import { shortHash } from '../core/hash.js';
import type { LeanRow, PlainLines } from '../store/listing/index.js';

// The line piped `lazy list` prints for a row. The listing index's plain file stores it for every row it can, so a
// list copies it unscanned. The store sits below output (and ops below it too), so the lines are handed down:
// bin/commands/list.ts gives PIPED_LINES to lib/ops/list.ts listLines, which gives them to the store's refreshPlain.
// The file is keyed on their version, the hash of the line's shape: a field added or moved re-keys it unbumped.

/**
 * The line's shape as data: a row's fields in this order, tab-separated, a list's items joined by a comma, each cell
 * one line escaped for a terminal. `cell` names that escape: bump it when printable or oneCell changes what it writes.
 */
const SHAPE = {
  fields: ['id', 'status', 'updated_at', 'tags', 'goal'],
  sep: '\t',
  items: ',',
  cell: 'printable(oneCell) 1',
} as const satisfies { fields: readonly (keyof LeanRow)[]; sep: string; items: string; cell: string };

/**
 * A row as piped `lazy list` prints it: id, status, last update (ISO, as gh prints times off a terminal), tags, goal,
 * escaped for a terminal; `status` is the status cell when it says more than the status (lib/output/tasks.ts).
 */
export function pipedLine(r: LeanRow, status: string = r.status): string {
  const cells = SHAPE.fields.map((f) => (f === 'status' ? status : f === 'tags' ? r.tags.join(SHAPE.items) : r[f]));
  return cells.map((c) => printable(oneCell(c))).join(SHAPE.sep);
}

/** What the store writes into its plain file: the piped line, and a version that changes with its shape. */
export const PIPED_LINES: PlainLines = { version: shortHash(JSON.stringify(SHAPE)), line: (r) => pipedLine(r) };
