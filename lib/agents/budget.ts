import type { Repo } from '../core/repo.js';
import { notAllowed } from '../core/errors.js';
import { now } from '../core/clock.js';
import type { Store } from '../store/store.js';
import type { Config } from '../store/config/index.js';
import { refreshIndex } from '../store/listing/index.js';
import type { TaskView } from '../model/fold.js';
import { lastSettled } from '../model/rounds.js';
import {
  AUTO_RESUMES_PER_DAY,
  autoResumesReached,
  spentOf,
  taskBudgetReached,
  type Limits,
  type Reached,
} from '../model/budget.js';

// The budget check every launch makes (launchTurn, under the task's lock, before anything is prepared): start,
// unblock, answer, resume, ask, queued feedback, reconcile's auto-resume and a fleet worker's claim all come through
// it. It is not a table guard because a guard reads only the task's own history, and its verdict is cached by the
// listing index keyed on the table alone; a budget also reads config (and the daily cap, other tasks), so the check
// lives where the launch has both.

const DAY_MS = 24 * 60 * 60 * 1000;

/** What the check needs of a launch. */
export interface BudgetLaunch {
  id: string;
  op: string;
  config: Config;
  fleet?: boolean;
}

/** The task's limits: its own (lazy unblock --budget) over the repository's; unset means no limit. */
export function limitsOf(v: Pick<TaskView, 'budget'>, config: Config): Limits {
  const tokens = v.budget?.tokens ?? config.budget?.task_tokens;
  const cost = v.budget?.cost_usd ?? config.budget?.task_cost_usd;
  return { ...(tokens !== undefined ? { tokens } : {}), ...(cost !== undefined ? { cost_usd: cost } : {}) };
}

/**
 * Refuses (exit 4) a launch past a budget. The task is left for a person, blocked with the attention
 * `budget reached: …` (from backlog, interrupted or blocked; a conflict or submitted task keeps its status). A fleet
 * worker's claim records nothing (the remote is the workers' record): it is refused, and the worker skips the task.
 */
export async function assertBudget(repo: Repo, store: Store, l: BudgetLaunch, before: TaskView): Promise<void> {
  const reached =
    taskBudgetReached(spentOf(before.turns, l.config.pricing), limitsOf(before, l.config)) ??
    (isAutoResume(l, before) ? await dailyCapReached(repo, store, l.config) : null);
  if (!reached) return;
  // Only a launch of the task's own work leaves it blocked for a person; an ask, a follow-up or a repair is refused
  // and moves nothing (each returns the task where it was, so its refusal must too), and a fleet claim records
  // nothing here (the remote is the workers' record).
  const view = l.fleet || !WORK_LAUNCHES.has(l.op) ? before : await recordReached(store, l.id, reached);
  const action = actionOf(l.op, before);
  throw notAllowed(
    action,
    view.status,
    view.available_actions,
    `task ${l.id} was not launched: ${reached.reason}; ${raiseHint(l.id, reached, view)}`,
    {
      guard: 'budget',
      budget: reached.budget,
      spent: reached.spent,
      limit: reached.limit,
      ...(reached.unpriced ? { unpriced_turns: reached.unpriced } : {}),
    },
  );
}

/** The launches of the task's own work: a budget that stops one leaves the task blocked with the reason. */
const WORK_LAUNCHES: ReadonlySet<string> = new Set(['start', 'unblock', 'answer', 'resume', 'auto-resume', 'work']);

/** What the person can do about it, named in the refusal: a task's own budget only where unblock can set it. */
function raiseHint(id: string, r: Reached, v: Pick<TaskView, 'available_actions'>): string {
  const unblock = v.available_actions.includes('unblock');
  if (r.budget === 'auto_resumes_per_day')
    return `raise budget.auto_resumes_per_day${unblock ? `, or go on by hand: lazy unblock ${id} -m "..."` : ''}`;
  const [key, flag] = r.budget === 'task_tokens' ? ['task_tokens', '--budget N'] : ['task_cost_usd', '--budget-usd X'];
  return `raise budget.${key} (lazy config set budget.${key} …)${unblock ? `, or this task's own: lazy unblock ${id} ${flag} -m "..."` : ''}`;
}

/** An unattended resume: reconcile's, or a fleet worker's claim of an interrupted task (both record auto_resume). */
const isAutoResume = (l: BudgetLaunch, v: TaskView) =>
  l.op === 'auto-resume' || (l.op === 'work' && v.status === 'interrupted');

/** The action a launch's op is (the table's name: follow-up is follow_up). */
const actionOf = (op: string, v: TaskView) =>
  op === 'auto-resume'
    ? 'resume'
    : op === 'work'
      ? v.status === 'backlog'
        ? 'start'
        : 'resume'
      : op.replace(/-/g, '_');

/** Blocks the task with the budget's reason, once: a second refusal for the same reason writes nothing. */
async function recordReached(store: Store, id: string, r: Reached): Promise<TaskView> {
  const { view } = await store.mutateUnlocked(
    id,
    'budget',
    (d) => {
      const last = lastSettled(d.view);
      if (d.status === 'blocked' && last?.trigger === 'budget' && last.reason === r.reason) return;
      if (d.status === 'backlog' || d.status === 'interrupted' || d.status === 'blocked')
        d.transition('blocked', 'budget', r.reason, {}, 'system');
    },
    { actor: 'system' },
  );
  return view;
}

/**
 * The repository's auto-resumes in the last 24 hours, from the tasks' histories. Only a task the listing index saw
 * change in that window can hold one, so only those are read.
 */
export async function autoResumesToday(repo: Repo, store: Store): Promise<number> {
  const since = now() - DAY_MS;
  const { rows } = await refreshIndex(repo.cwd, repo.lazyDir, store.reader);
  let n = 0;
  for (const r of rows) {
    if (Date.parse(r.updated_at) < since) continue;
    const v = await store.view(r.id);
    for (const c of v.changelog)
      if (!c.set_aside && c.trigger === 'auto_resume' && Date.parse(c.timestamp) >= since) n++;
  }
  return n;
}

async function dailyCapReached(repo: Repo, store: Store, config: Config): Promise<Reached | null> {
  const cap = config.budget?.auto_resumes_per_day ?? AUTO_RESUMES_PER_DAY;
  return autoResumesReached(await autoResumesToday(repo, store), cap);
}
