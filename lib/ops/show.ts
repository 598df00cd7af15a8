import { changeFacts } from '../model/details.js';
import type { BranchStanding } from '../workspace/branch/sync.js';
import type { ReviewGap } from './accept/guard.js';
import { existsSync, statSync } from 'node:fs';
import type { TaskView } from '../model/fold.js';
import { lastSettled } from '../model/rounds.js';
import { resolveTaskId } from '../store/refs.js';
import type { App } from './app.js';
import type { Waiting } from '../agents/supervisor/waits.js';
import type { AdapterName } from '../agents/adapters/adapter.js';
import type { Substate } from '../agents/substate.js';
import { prBody } from '../model/pr-body.js';
import { taskUsage, type UsageTotals } from '../model/usage.js';
import type { BranchNews } from '../workspace/submission.js';
import { now } from '../core/clock.js';
import type { ActionCondition } from '../model/situation.js';
import { situateView } from './situated.js';
import { reviewerCommands, type ReviewerCommand } from '../model/review.js';

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
  /** The commands people ran (lazy run) on the work under review: the command turns since the latest review. */
  reviewer_commands: ReviewerCommand[];
}

export async function showTask(app: App, idArg: string): Promise<ShownTask> {
  const id = await resolveTaskId(app.repo.cwd, idArg);
  // Its git runs while the task is read: two processes at once instead of one after the other.
  const standing = import('../workspace/branch/sync.js').then((m) => m.branchStanding(app.repo.cwd, id));
  standing.catch(() => {}); // a task that cannot be read fails below; this result is then dropped
  const v = await app.store.view(id);
  const usage = taskUsage(v.turns);
  const lastInterrupt = lastSettled(v, 'interrupted'); // what interrupted it, past any repair since
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
    branch_sync: await standing,
    review_gap: gap,
    reviewer_commands: reviewerCommands(v),
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
