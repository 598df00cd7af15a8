import type { TaskView } from '../model/fold.js';
import { launchTurn } from '../agents/launch.js';
import type { RunRecord } from '../agents/runs.js';
import type { UpstreamSkipped } from '../agents/prompt.js';
import type { App } from './app.js';

// What a turn a person starts reports, and the launch of one with a person's text (unblock's feedback, an answer).

export interface TurnStarted {
  task: TaskView;
  run: RunRecord | null;
  /** Feedback given while the agent works: recorded, it starts the next turn when this one ends. */
  queued?: { turn: string; sequence: number; behind_run: string | null };
  /** The upstream merge the turn did not get because the worktree was dirty. */
  upstream_skipped?: UpstreamSkipped;
}
/** The turn a person's text (unblock's feedback, an answer) launches, as those commands report it. */
export async function launchText(
  app: App,
  id: string,
  op: 'unblock' | 'answer',
  plan: Parameters<typeof launchTurn>[3]['plan'],
): Promise<TurnStarted> {
  const {
    view: task,
    run,
    upstream_skipped,
  } = await launchTurn(app.repo, app.store, app.launcher, {
    id,
    op,
    config: await app.config(),
    plan,
  });
  return { task, run, ...(upstream_skipped ? { upstream_skipped } : {}) };
}
