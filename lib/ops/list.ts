import { categoryOf, isStatus, isTerminal, type Status } from '../model/status.js';
import { type TaskView } from '../model/fold.js';
import { usageError } from '../core/errors.js';
import { listTaskRefs, resolveTaskId } from '../store/refs.js';
import {
  byCreation,
  firstRows,
  refreshIndex,
  refreshPlain,
  type LeanRow,
  type PlainLines,
  type Refreshed,
  type Row,
} from '../store/listing/index.js';
import type { App } from './app.js';
import type { Waiting } from '../agents/supervisor/waits.js';
import type { Substate } from '../agents/substate.js';
import { byQueueOrder } from '../model/schedule.js';
import { SORTS, type Sort } from './sorts.js';
import type { ActionCondition } from '../model/situation.js';
import { situateRows } from './situated.js';

/**
 * `waiting` is present only on a working task whose turn waits for the agent's usage limit to reset;
 * `substate` is what a working turn is doing (its agent's progress line, a wait on a subtask), else null.
 */
export type ListedTask = (LeanRow | Row) &
  Pick<TaskView, 'category'> & { waiting?: Waiting; substate: Substate | null; action_conditions?: ActionCondition[] };

/** What list and inbox both narrow by: every tag given must be on the task; search is a case-insensitive substring. */
export interface RowFilter {
  tag?: string | string[];
  search?: string;
  sort?: string;
  limit?: number;
}

export interface ListInput extends RowFilter {
  all?: boolean;
  status?: string[];
  parent?: string;
  /** Only queued tasks a worker will pick (schedule.held null), in queue order (the order a worker picks them in). */
  queued?: boolean;
  /** Only paused tasks. */
  paused?: boolean;
}

type Sortable = { id: string; created_at: string; updated_at: string; schedule: { priority: number } };
const ORDER: Record<Sort, (a: Sortable, b: Sortable) => number> = {
  created: byCreation,
  // The most recently changed first, as gh sorts by update.
  updated: (a, b) => (a.updated_at > b.updated_at ? -1 : a.updated_at < b.updated_at ? 1 : byCreation(a, b)),
  priority: (a, b) => byQueueOrder(queueKey(a), queueKey(b)),
};

/** Checks a filter's flags once, and returns a test for a row plus the order and cut for the result. */
export function rowFilter(f: RowFilter, prompts?: (id: string) => string | null) {
  const tags = [f.tag ?? []]
    .flat()
    .flatMap((t) => t.split(','))
    .map((t) => t.trim())
    .filter(Boolean);
  const needle = f.search?.trim().toLowerCase() || undefined;
  if (f.sort !== undefined && !(SORTS as readonly string[]).includes(f.sort))
    throw usageError(`unknown sort '${f.sort}': use ${SORTS.join(', ')}`);
  if (f.limit !== undefined && !(Number.isInteger(f.limit) && f.limit > 0))
    throw usageError(`--limit must be a whole number above 0, got '${f.limit}'`);
  const text = (r: { id: string; goal: string; acceptance?: string[] }) =>
    [r.goal, prompts?.(r.id) ?? '', ...(r.acceptance ?? [])].join('\n').toLowerCase();
  return {
    /** Whether --search needs the fields only the detail index holds (prompt, criteria). */
    needsDetail: needle !== undefined,
    active: tags.length > 0 || needle !== undefined,
    keep: (r: { id: string; goal: string; tags: string[]; acceptance?: string[] }) =>
      tags.every((t) => r.tags.includes(t)) && (needle === undefined || text(r).includes(needle)),
    order: f.sort ? ORDER[f.sort as Sort] : undefined,
    limit: f.limit,
  };
}

function statusList(input: ListInput): string[] {
  const statuses = (input.status ?? [])
    .flatMap((s) => s.split(','))
    .map((s) => s.trim())
    .filter(Boolean);
  for (const s of statuses) if (!isStatus(s)) throw usageError(`unknown status '${s}'`);
  return statuses;
}

export async function listTasks(app: App, input: ListInput): Promise<ListedTask[]> {
  const statuses = statusList(input);
  const filter = rowFilter(input);
  // The table needs only the compact rows; --json (and --search, which reads prompts and criteria) the full ones.
  // A --limit in creation order with no other filter reads only the first rows of the index.
  const first = isPlain(input, filter) ? filter.limit : undefined;
  const keep = statusTest(input, statuses);
  const read =
    app.out.json || filter.needsDetail
      ? await refreshIndex(app.repo.cwd, app.repo.lazyDir, app.store.reader, true, keep, statuses.length > 0)
      : await refreshIndex(app.repo.cwd, app.repo.lazyDir, app.store.reader, false, keep, statuses.length > 0, first);
  return listFrom(app, input, { ...read, whole: false });
}

/**
 * What a list selects from: one read of the listing index. `whole`: its rows are every task the index holds, one
 * read several lists share (the board's, readListing), so each list copies the rows it keeps before giving them its
 * fields (a row's actions are situated once, for one list); else the read is this list's own, its rows changed in
 * place (at 100,000 rows a copy is time a list does not have).
 */
export type ListingRead = Pick<Refreshed<LeanRow | Row>, 'rows' | 'bad' | 'prompt'> & { whole: boolean };

/** One read of every task's detail row, which inboxFrom and listFrom select from as inbox and list --json would. */
export async function readListing(app: App): Promise<ListingRead & { rows: Row[] }> {
  const read = await refreshIndex(app.repo.cwd, app.repo.lazyDir, app.store.reader, true);
  return { rows: read.rows, bad: read.bad, prompt: read.prompt, whole: true };
}

/** A list from rows read already; `also`, a further test of a row, applied before the cut (the board's backlog). */
export async function listFrom(
  app: App,
  input: ListInput,
  read: ListingRead,
  also?: (r: LeanRow) => boolean,
): Promise<ListedTask[]> {
  const statuses = statusList(input);
  const filter = rowFilter(input, read.prompt);
  const keep = statusTest(input, statuses);
  let { rows, bad } = read;
  if (wantsArchive(input, statuses)) {
    const more = await archived(app, keep, app.out.json || filter.needsDetail);
    if (read.whole)
      [rows, bad] = [
        [...rows, ...more.rows],
        [...bad, ...more.bad],
      ];
    else (rows.push(...more.rows), bad.push(...more.bad));
  }
  warnBad(app, bad);
  const parent = input.parent ? await resolveTaskId(app.repo.cwd, input.parent) : undefined;
  let out: ListedTask[] = [];
  for (const r of rows) {
    // A shared read holds every status; a list's own read only those it keeps.
    if ((read.whole && !keep(r.status)) || !filter.keep(r) || (parent && r.parent !== parent)) continue;
    // --queued: what the workers will take, in their order; a queued task none will pick says why in the table.
    if ((input.queued && (!r.schedule.queued || r.schedule.held)) || (input.paused && !r.schedule.paused)) continue;
    if (also && !also(r)) continue;
    out.push(Object.assign(read.whole ? { ...r } : r, { category: categoryOf(r.status as Status), substate: null }));
  }
  // The index keeps rows in creation order already, so that sort is a linear pass.
  out.sort(filter.order ?? (input.queued ? ORDER.priority : byCreation));
  if (filter.limit) out = out.slice(0, filter.limit);
  await withRuns(app, out);
  // --json rows carry the actions this clone can take; without a status filter (or from a shared read) the rows hold
  // every open task.
  if (app.out.json) await situateRows(app, out, read.whole || !statuses.length ? rows : undefined);
  return out;
}

/** Only working rows read their run's files: a list of idle tasks stays one for-each-ref. */
async function withRuns(app: App, rows: ListedTask[]): Promise<void> {
  if (!rows.some((r) => r.status === 'working')) return;
  const { listWaiting } = await import('../agents/supervisor/waits.js');
  const { substateOf } = await import('../agents/substate.js');
  const waits = listWaiting(app.repo.lazyDir);
  for (const r of rows) {
    if (r.status !== 'working') continue;
    const w = waits.get(r.id);
    if (w && w.run === r.current_run) r.waiting = w;
    r.substate = substateOf(app.repo.lazyDir, r);
  }
}

/** A listed task, or (tasks nothing about which is live) the lines piped `lazy list` prints for them, a run. */
export type ListItem = ListedTask | string;

/**
 * list's text: with no filter but the status, the index's plain file gives the rows' piped lines in runs, as
 * stored, not parsed (100,000 rows in about the time git lists their refs); any other list is listTasks'.
 * `piped` makes those lines: the caller's (bin/ hands lib/output/piped-line.ts PIPED_LINES), as output sits above ops.
 */
export async function listLines(
  app: App,
  input: ListInput & { tree?: boolean },
  piped: PlainLines,
): Promise<ListItem[]> {
  const filter = rowFilter(input);
  const statuses = statusList(input);
  // The tree and --json need every row whole; so do archived tasks, which the index does not hold.
  if (app.out.json || input.tree || !isPlain(input, filter) || wantsArchive(input, statuses))
    return listTasks(app, input);
  const keep = statusTest(input, statuses);
  const got = await refreshPlain(app.repo.cwd, app.repo.lazyDir, app.store.reader, keep, piped);
  if (!got) return listTasks(app, input);
  warnBad(app, got.bad);
  const items: (ListItem | LeanRow)[] = filter.limit ? firstRows(got.items, filter.limit) : got.items;
  const rows: ListedTask[] = [];
  // In place: at 100,000 rows a second array is time a list does not have.
  for (let i = 0; i < items.length; i++) {
    const r = items[i]!;
    if (typeof r !== 'string')
      rows.push((items[i] = Object.assign(r, { category: categoryOf(r.status as Status), substate: null })));
  }
  await withRuns(app, rows);
  return items as ListItem[];
}

/** Only a list that may show finished tasks reads the archive: the default list (open tasks) never does. */
const wantsArchive = (input: ListInput, statuses: string[]) =>
  statuses.length ? statuses.some((s) => isTerminal(s as Status)) : !!input.all;

async function archived(app: App, keep: (s: string) => boolean, detail: boolean) {
  const { archivedRows } = await import('../store/archive/rows.js');
  const live = new Set((await listTaskRefs(app.repo.cwd)).map((r) => r.id));
  return archivedRows(app.repo.lazyDir, app.store.reader, live, keep, detail);
}

const isPlain = (input: ListInput, filter: ReturnType<typeof rowFilter>) =>
  !filter.active && !input.parent && !input.queued && !input.paused && (input.sort ?? 'created') === 'created';

/** Rows whose stored status is not wanted are never parsed. */
const statusTest = (input: ListInput, statuses: string[]) => (s: string) =>
  statuses.length ? statuses.includes(s) : !!input.all || !isTerminal(s as Status);

const warnBad = (app: App, bad: { id: string; error: { message: string } }[]) => {
  for (const b of bad) app.io.warn(`task ${b.id} is unreadable and was skipped: ${b.error.message} (run lazy doctor)`);
};

const queueKey = (r: Sortable) => ({ priority: r.schedule.priority, created_at: r.created_at, id: r.id });
