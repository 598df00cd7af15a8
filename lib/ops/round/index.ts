import { sanitizeProse } from '../../core/sanitize.js';
import { notAllowed, usageError } from '../../core/errors.js';
import { taskBranch } from '../../core/names.js';
import { assertAllowed } from '../../model/table.js';
import { situatedActions } from '../../model/situation.js';
import type { TaskView } from '../../model/fold.js';
import { launchTurn } from '../../agents/launch.js';
import { planRound, repairContext, type RoundInput } from '../../agents/rounds.js';
import { restoreBranch } from '../../workspace/branch/restore.js';
import { assertBudget } from '../../agents/budget.js';
import type { TurnStarted } from '../turn.js';
import { boundedText } from '../create.js';
import { allowedTaskArg } from '../resolve.js';
import type { App } from '../app.js';

// lazy follow-up and lazy repair: one status-neutral round of work on a task that rests. A follow-up works on a
// complete or abandoned task's branch (its worktree made again from it); a repair runs one throwaway agent in a blocked or interrupted task's
// worktree. Either returns the task where it was however it ends (round_end), changes no verdict, and spends
// no retry or crash budget.

export interface RoundOptions {
  /** The person's prompt (-m). */
  text?: string;
  agent?: string;
  /** follow-up --command: a shell command instead of an agent. */
  command?: string;
  /** Where a --command's output goes as it runs (--follow). */
  onOutput?: (chunk: string) => void;
}

export async function followUpTask(app: App, idArg: string, o: RoundOptions): Promise<TurnStarted> {
  const { id, view } = await allowedTaskArg(app, idArg, 'follow_up');
  // An agent's round past its budget is refused before the branch is made again for it (launchTurn checks again).
  if (o.command === undefined)
    await assertBudget(app.repo, app.store, { id, op: 'follow-up', config: await app.config() }, view);
  await assertWorkKept(app, view);
  if (o.command !== undefined) {
    const { runCommandRound } = await import('./command.js');
    return runCommandRound(app, id, boundedText('the command', o.command.trim()), o.onOutput);
  }
  return launchRound(app, id, 'follow_up', { kind: 'follow_up', text: promptOf(o) }, o.agent);
}

export async function repairTask(app: App, idArg: string, o: RoundOptions): Promise<TurnStarted> {
  const { id, view } = await allowedTaskArg(app, idArg, 'repair');
  const context = repairContext(app.repo.lazyDir, view);
  return launchRound(app, id, 'repair', { kind: 'repair', text: promptOf(o), context }, o.agent);
}

function promptOf(o: RoundOptions): string {
  const text = sanitizeProse(o.text ?? '').trim();
  if (!text) throw usageError('give the agent a prompt (-m "<what to do>")', { argument: 'message' });
  return boundedText('the prompt', text);
}

async function launchRound(app: App, id: string, op: string, r: RoundInput, agent?: string): Promise<TurnStarted> {
  const { view: task, run } = await launchTurn(app.repo, app.store, app.launcher, {
    id,
    op: op.replace('_', '-'),
    kind: r.kind,
    ...(agent ? { agent } : {}),
    config: await app.config(),
    plan: (d, ref) => {
      assertAllowed(r.kind, d.view);
      return planRound(d, ref, r);
    },
  });
  return { task, run };
}

/**
 * A follow-up works on the task's own branch: the worktree is made again from it when it was removed, and an
 * accepted task's branch (which the accept deleted) again at the head its review recorded. Anything else that is
 * gone is not guessed at: refused, saying how to bring it back.
 */
async function assertWorkKept(app: App, v: TaskView): Promise<void> {
  const branch = taskBranch(v.id);
  if (await restoreBranch(app.repo, v)) return;
  const head = v.reviewed_head;
  throw notAllowed(
    'follow_up',
    v.status,
    situatedActions(v, { noBranch: true }),
    `task ${v.id} is ${v.status} and its branch ${branch} is gone` +
      (v.status === 'complete' ? ' (an accept deletes it once the work landed)' : '') +
      ': a follow-up works on that branch; ' +
      (head ? `bring it back with git branch ${branch} ${head} (the last reviewed head), or ` : '') +
      `lazy reopen ${v.id} to start over`,
    { branch, ...(head ? { reviewed_head: head } : {}) },
  );
}
