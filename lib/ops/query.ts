import type { BranchStanding } from '../workspace/branch/sync.js';
import type { ReviewGap } from './accept/guard.js';
import { existsSync, statSync } from 'node:fs';
import { categoryOf, isStatus, isTerminal, type Status } from '../model/status.js';
import { lastChange, type TaskView } from '../model/fold.js';
import { usageError } from '../core/errors.js';
import { resolveTaskId } from '../store/refs.js';
import {
  byCreation,
  firstRows,
  refreshIndex,
  refreshPlain,
  type LeanRow,
  type PlainLines,
  type Row,
} from '../store/listing/index.js';
import type { App } from './app.js';
import type { Waiting } from '../agents/supervisor/waits.js';
import type { AdapterName } from '../agents/adapters/adapter.js';
import type { Substate } from '../agents/substate.js';
import { prBody } from '../model/pr-body.js';
import { taskUsage, type UsageTotals } from '../model/usage.js';
import { byQueueOrder } from '../model/schedule.js';
import type { BranchNews } from '../workspace/submission.js';
import { SORTS, type Sort } from './sorts.js';
import { now } from '../core/clock.js';
import type { ActionCondition } from '../model/situation.js';
import { situateView, situateRows } from './situated.js';
import { changeFacts } from '../model/details.js';

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
  let filter = rowFilter(input);
  // The table needs only the compact rows; --json (and --search, which reads prompts and criteria) the full ones.
  // A --limit in creation order with no other filter reads only the first rows of the index.
  const first = isPlain(input, filter) ? filter.limit : undefined;
  const keep = statusTest(input, statuses);
  const { rows, bad, prompt } =
    app.out.json || filter.needsDetail
      ? await refreshIndex(app.repo.cwd, app.repo.lazyDir, app.store.reader, true, keep, statuses.length > 0)
      : await refreshIndex(app.repo.cwd, app.repo.lazyDir, app.store.reader, false, keep, statuses.length > 0, first);
  if (prompt) filter = rowFilter(input, prompt);
  warnBad(app, bad);
  const parent = input.parent ? await resolveTaskId(app.repo.cwd, input.parent) : undefined;
  let out: ListedTask[] = [];
  for (const r of rows) {
    if (!filter.keep(r) || (parent && r.parent !== parent)) continue;
    // --queued: what the workers will take, in their order; a queued task none will pick says why in the table.
    if ((input.queued && (!r.schedule.queued || r.schedule.held)) || (input.paused && !r.schedule.paused)) continue;
    out.push(Object.assign(r, { category: categoryOf(r.status as Status), substate: null }));
  }
  // The index keeps rows in creation order already, so that sort is a linear pass.
  out.sort(filter.order ?? (input.queued ? ORDER.priority : byCreation));
  if (filter.limit) out = out.slice(0, filter.limit);
  await withRuns(app, out);
  // --json rows carry the actions this clone can take; without a status filter the rows hold every open task.
  if (app.out.json) await situateRows(app, out, statuses.length ? undefined : rows);
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
  // The tree and --json need every row whole.
  if (app.out.json || input.tree || !isPlain(input, filter)) return listTasks(app, input);
  const statuses = statusList(input);
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

const isPlain = (input: ListInput, filter: ReturnType<typeof rowFilter>) =>
  !filter.active && !input.parent && !input.queued && !input.paused && (input.sort ?? 'created') === 'created';

/** Rows whose stored status is not wanted are never parsed. */
const statusTest = (input: ListInput, statuses: string[]) => (s: string) =>
  statuses.length ? statuses.includes(s) : !!input.all || !isTerminal(s as Status);

const warnBad = (app: App, bad: { id: string; error: { message: string } }[]) => {
  for (const b of bad) app.io.warn(`task ${b.id} is unreadable and was skipped: ${b.error.message} (run lazy doctor)`);
};

const queueKey = (r: Sortable) => ({ priority: r.schedule.priority, created_at: r.created_at, id: r.id });

/** show's view: the task plus what only this machine knows (worktree, the running turn's log). */
export interface ShownTask extends TaskView {
  /** What the table's actions require of their caller here (lib/model/situation.ts). */
  action_conditions: ActionCondition[];
  usage: UsageTotals;
  interrupt: { [k: string]: unknown } | null;
  worktree: string | null;
  run: {
    id: string;
    host: string | null;
    /** The adapter whose dialect the raw log lines speak (text output renders them readable). */
    adapter: AdapterName | null;
    heartbeat_age_s: number | null;
    log: string[];
  } | null;
  /** The running turn waits for the agent's usage limit to reset (this machine's runs only). */
  waiting: Waiting | null;
  /** What the running turn is doing, as its agent told lazy's MCP server (this machine's runs only). */
  substate: Substate | null;
  /** A submitted task: commits someone else pushed to its remote branch, as the last fetch saw them. */
  branch_news: BranchNews | null;
  /** The task branch against the copy last pulled from a remote. */
  branch_sync: BranchStanding;
  /**
   * While accept or submit is an action: the task branch against the head its latest review recorded, when accept
   * would refuse it (lib/ops/accept/guard.ts reviewGap, the fact its unreviewed_head refusal reads), with the remote
   * a pull brought that head from; null when accept would land the branch as it stands.
   */
  review_gap: (ReviewGap & { pulled_from: string | null }) | null;
}

export async function showTask(app: App, idArg: string): Promise<ShownTask> {
  const id = await resolveTaskId(app.repo.cwd, idArg);
  const v = await app.store.view(id);
  const usage = taskUsage(v.turns);
  const lastInterrupt = lastChange(v, 'interrupted');
  const lastRun = [...v.turns].reverse().find((t) => t.run)?.run ?? null;
  const runId = v.current_run ?? lastRun;
  let run: ShownTask['run'] = null;
  let waiting: Waiting | null = null;
  let substate: Substate | null = null;
  if (v.status === 'working') {
    waiting = (await import('../agents/supervisor/waits.js')).readWaiting(app.repo.lazyDir, id, v.current_run);
    substate = (await import('../agents/substate.js')).substateOf(app.repo.lazyDir, v);
  }
  if (runId) {
    const { readRun, logTail, runDir, runFiles } = await import('../agents/runs.js');
    const rec = readRun(app.repo.lazyDir, runId);
    let age: number | null = null;
    try {
      age = Math.round((now() - statSync(runFiles(runDir(app.repo.lazyDir, runId)).heartbeat).mtimeMs) / 1000);
    } catch {
      /* not here */
    }
    run = {
      id: runId,
      host: rec?.host ?? null,
      adapter: rec?.agent.adapter ?? null,
      heartbeat_age_s: age,
      log: logTail(app.repo.lazyDir, runId, 20),
    };
  }
  let news: BranchNews | null = null;
  if (v.status === 'submitted') {
    const { branchNews, submissionOf } = await import('../workspace/submission.js');
    const sub = submissionOf(v);
    news = sub && (await branchNews(app.repo.cwd, id, sub));
  }
  const { worktreePath } = await import('../workspace/worktree.js');
  const { branchStanding } = await import('../workspace/branch/sync.js');
  const wt = v.session ? worktreePath(app.repo, id, (await app.config()).worktree_dir) : null;
  const here = await situateView(app, v);
  const gap = await reviewGapOf(app, v, here.gap);
  return {
    ...v,
    available_actions: here.available_actions,
    action_conditions: here.action_conditions,
    usage,
    interrupt: lastInterrupt
      ? {
          at: lastInterrupt.timestamp,
          reason: lastInterrupt.reason,
          trigger: lastInterrupt.trigger,
          ...changeFacts(lastInterrupt),
        }
      : null,
    worktree: wt && existsSync(wt) ? wt : null,
    run,
    waiting,
    substate,
    branch_news: news,
    branch_sync: await branchStanding(app.repo.cwd, id),
    review_gap: gap,
  };
}

/**
 * What show says of a branch accept would refuse as it stands: the gap situateView found while the table lists accept
 * or submit (a lost branch is named on its own).
 */
async function reviewGapOf(app: App, v: TaskView, gap: ReviewGap | null): Promise<ShownTask['review_gap']> {
  if (!gap) return null;
  const { pulledFrom } = await import('../workspace/branch/sync.js');
  return { ...gap, pulled_from: await pulledFrom(app.repo.cwd, v.id, gap.branch_head) };
}

/** The pull request body (the review package as Markdown), exactly as lazy submit writes LAZY_BODY_FILE. */
export async function showMarkdown(app: App, idArg: string): Promise<{ id: string; markdown: string }> {
  const id = await resolveTaskId(app.repo.cwd, idArg);
  return { id, markdown: prBody(await app.store.view(id)) };
}
