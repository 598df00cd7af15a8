import type { BranchStanding } from '../workspace/branch-sync.js';
import { existsSync, statSync } from 'node:fs';
import { categoryOf, isStatus, isTerminal, type Status } from '../model/status.js';
import { lastChange, type TaskView } from '../model/fold.js';
import { usageError } from '../core/errors.js';
import { resolveTaskId } from '../store/refs.js';
import { byCreation, refreshIndex, type LeanRow, type Row } from '../store/listing.js';
import type { App } from './app.js';
import type { Waiting } from '../agents/supervisor/waits.js';
import type { AdapterName } from '../agents/adapters/adapter.js';
import type { Substate } from '../agents/substate.js';
import { prBody } from '../model/pr-body.js';
import { taskUsage, type UsageTotals } from '../model/usage.js';
import { byQueueOrder } from '../model/schedule.js';
import type { BranchNews } from '../workspace/submission.js';

/**
 * `waiting` is present only on a working task whose turn waits for the agent's usage limit to reset;
 * `substate` is what a working turn is doing (its agent's progress line, a wait on a subtask), else null.
 */
export type ListedTask = (LeanRow | Row) &
  Pick<TaskView, 'category'> & { waiting?: Waiting; substate: Substate | null };

export interface ListInput {
  all?: boolean;
  status?: string[];
  tag?: string;
  parent?: string;
  /** Only queued tasks, in queue order (the order a worker picks them in). */
  queued?: boolean;
  /** Only paused tasks. */
  paused?: boolean;
}

export async function listTasks(app: App, input: ListInput): Promise<ListedTask[]> {
  const statuses = (input.status ?? [])
    .flatMap((s) => s.split(','))
    .map((s) => s.trim())
    .filter(Boolean);
  for (const s of statuses) if (!isStatus(s)) throw usageError(`unknown status '${s}'`);
  // The table needs only the compact rows; --json gets the full listed task.
  const { rows, bad } = app.out.json
    ? await refreshIndex(app.repo.cwd, app.repo.lazyDir, app.store.reader, true)
    : await refreshIndex(app.repo.cwd, app.repo.lazyDir, app.store.reader);
  for (const b of bad) app.io.warn(`task ${b.id} is unreadable and was skipped: ${b.error.message} (run lazy doctor)`);
  const parent = input.parent ? await resolveTaskId(app.repo.cwd, input.parent) : undefined;
  const out: ListedTask[] = [];
  for (const r of rows) {
    if (statuses.length ? !statuses.includes(r.status) : !input.all && isTerminal(r.status)) continue;
    if ((input.tag && !r.tags.includes(input.tag)) || (parent && r.parent !== parent)) continue;
    if ((input.queued && !r.schedule.queued) || (input.paused && !r.schedule.paused)) continue;
    out.push(Object.assign(r, { category: categoryOf(r.status as Status), substate: null }));
  }
  // Only working rows read their run's files: a list of idle tasks stays one for-each-ref.
  if (out.some((r) => r.status === 'working')) {
    const { listWaiting } = await import('../agents/supervisor/waits.js');
    const { substateOf } = await import('../agents/substate.js');
    const waits = listWaiting(app.repo.lazyDir);
    for (const r of out) {
      if (r.status !== 'working') continue;
      const w = waits.get(r.id);
      if (w && w.run === r.current_run) r.waiting = w;
      r.substate = substateOf(app.repo.lazyDir, r);
    }
  }
  if (input.queued) return out.sort((a, b) => byQueueOrder(queueKey(a), queueKey(b)));
  // The index keeps rows in this order already, so this sort is a linear pass.
  return out.sort(byCreation);
}

const queueKey = (r: ListedTask) => ({ priority: r.schedule.priority, created_at: r.created_at, id: r.id });

/** show's view: the task plus what only this machine knows (worktree, the running turn's log). */
export interface ShownTask extends TaskView {
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
      age = Math.round((Date.now() - statSync(runFiles(runDir(app.repo.lazyDir, runId)).heartbeat).mtimeMs) / 1000);
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
  const { branchStanding } = await import('../workspace/branch-sync.js');
  const wt = v.session ? worktreePath(app.repo, id, (await app.config()).worktree_dir) : null;
  return {
    ...v,
    usage,
    interrupt: lastInterrupt
      ? {
          at: lastInterrupt.timestamp,
          reason: lastInterrupt.reason,
          trigger: lastInterrupt.trigger,
          ...(lastInterrupt.details ?? {}),
        }
      : null,
    worktree: wt && existsSync(wt) ? wt : null,
    run,
    waiting,
    substate,
    branch_news: news,
    branch_sync: await branchStanding(app.repo.cwd, id),
  };
}

/** The pull request body (the review package as Markdown), exactly as lazy submit writes LAZY_BODY_FILE. */
export async function showMarkdown(app: App, idArg: string): Promise<{ id: string; markdown: string }> {
  const id = await resolveTaskId(app.repo.cwd, idArg);
  return { id, markdown: prBody(await app.store.view(id)) };
}
