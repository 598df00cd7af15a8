import { sanitizeProse } from '../core/sanitize.js';
import { assertAllowed, availableActions, statusActions } from '../model/table.js';
import { placeOf } from '../core/place.js';
import { LazyError, notAllowed } from '../core/errors.js';
import { pendingQuestion } from '../model/attention.js';
import type { TaskView } from '../model/fold.js';
import { launchTurn } from '../agents/launch.js';
import { planFeedback, planResume, planStart } from '../agents/turns.js';
import type { RunRecord } from '../agents/runs.js';
import { dirtyFiles, worktreePath } from '../workspace/worktree.js';
import { assertNotWorkingElsewhere } from '../workspace/branch/index.js';
import { boundedText } from './create.js';
import { applyReverts, planDecisions, recordDecisions, type DecisionFlags } from './decisions.js';
import { allowedTaskArg, taskArg } from './resolve.js';
import { firstLine } from './comment.js';
import type { UpstreamSkipped } from '../agents/prompt.js';
import type { App } from './app.js';
import { landingBranch } from '../model/landing.js';

export interface TurnStarted {
  task: TaskView;
  run: RunRecord | null;
  /** Feedback given while the agent works: recorded, it starts the next turn when this one ends. */
  queued?: { turn: string; sequence: number; behind_run: string | null };
  /** The upstream merge the turn did not get because the worktree was dirty. */
  upstream_skipped?: UpstreamSkipped;
}

/**
 * unblock: feedback is recorded before anything runs, upstream is merged, the next turn
 * starts. On a task with a pending decision the feedback is the answer.
 */
export async function unblockTask(
  app: App,
  idArg: string,
  text: string,
  flags: DecisionFlags = {},
): Promise<TurnStarted> {
  const { id, view } = await taskArg(app, idArg);
  assertNotWorkingElsewhere(view, 'unblock', placeOf(app.repo));
  assertAllowed('unblock', view);
  // A pending decision (answer's guard holds): the feedback is the answer.
  if (view.available_actions.includes('answer')) {
    try {
      return await answerTask(app, id, text);
    } catch (e) {
      // Another unblock answered first and its turn runs: this feedback queues behind it, as below.
      if (!(e instanceof LazyError && e.code === 'action_not_allowed')) throw e;
      if ((await app.store.view(id)).status !== 'working') throw e;
      return unblockTask(app, id, text, flags);
    }
  }
  const content = boundedText('the feedback', sanitizeProse(text));
  if (view.status === 'working') {
    const queued = await queueFeedback(app, id, content, flags);
    if (queued) return queued;
  }
  const planned = await applyReverts(app, view, planDecisions(view, flags, 'unblock'));
  // Another unblock (or a start) may launch between our look and the lock: the feedback then queues behind that
  // turn, as it would on a task seen working; a turn that ended meanwhile is launched again (bounded).
  for (let attempt = 0; ; attempt++) {
    let raced = false;
    try {
      return await launchText(app, id, 'unblock', (d, r) => {
        assertAllowed('unblock', d.view);
        if (d.status === 'working') {
          raced = true;
          throw notAllowed(
            'unblock',
            d.status,
            availableActions(d.view),
            `task ${id} started a turn meanwhile; send the feedback again to queue it`,
          );
        }
        recordDecisions(d, planned);
        return planFeedback(d, r, 'unblock', content);
      });
    } catch (e) {
      if (!raced || attempt >= 2) throw e;
    }
    const queued = await queueFeedback(app, id, content, flags);
    if (queued) return queued;
  }
}

/**
 * unblock while the agent works: the feedback is recorded as pending (one commit) and the
 * end of the running turn starts the next turn with it. Null when the turn ended meanwhile.
 */
async function queueFeedback(app: App, id: string, content: string, flags: DecisionFlags): Promise<TurnStarted | null> {
  if (flags.approve?.length || flags.revert?.length || flags.approveAll || flags.revertAll) {
    throw notAllowed(
      'unblock',
      'working',
      statusActions('working'),
      `task ${id} is working: decide on protected files once its turn has ended (nothing was queued)`,
    );
  }
  let queued: TurnStarted['queued'];
  const { view } = await app.store.mutate(id, 'unblock', (d) => {
    if (d.status !== 'working') return;
    assertNotWorkingElsewhere(d.view, 'unblock', placeOf(app.repo));
    const t = d.turn({ role: 'human', kind: 'feedback', content, feedback: 'pending' });
    d.summary = `feedback queued: ${firstLine(content)}`;
    queued = { turn: t.id, sequence: 0, behind_run: d.view.current_run };
  });
  if (!queued) return null;
  queued.sequence = view.turns.find((t) => t.id === queued!.turn)?.sequence ?? view.turns.length;
  return { task: view, run: null, queued };
}

/** answer: resolves a pending decision and starts the turn that acts on it. */
export async function answerTask(app: App, idArg: string, text: string): Promise<TurnStarted> {
  const { id, view } = await allowedTaskArg(app, idArg, 'answer');
  const content = boundedText('the answer', sanitizeProse(text));
  const clarifying = !pendingQuestion(view.turns);
  return launchText(app, id, 'answer', (d, r) => {
    assertAllowed('answer', d.view);
    if (!clarifying) return planFeedback(d, r, 'answer', content);
    // The answer to "what does done look like" becomes a criterion, then the first turn starts.
    d.setTask({ acceptance: [...d.view.acceptance, content] });
    d.turn({ role: 'human', kind: 'answer', content, session: r.session });
    return planStart(d, r, 'answer');
  });
}

/** The turn a person's text (unblock's feedback, an answer) launches, as those commands report it. */
async function launchText(
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

/** resume: the interrupted task's next turn, with no feedback required. */
export async function resumeTask(app: App, idArg: string): Promise<TurnStarted> {
  const { id } = await allowedTaskArg(app, idArg, 'resume');
  const config = await app.config();
  const dirty = (await dirtyFiles(worktreePath(app.repo, id, config.worktree_dir)).catch(() => [])).length > 0;
  const { view: task, run } = await launchTurn(app.repo, app.store, app.launcher, {
    id,
    op: 'resume',
    config,
    plan: (d, r) => {
      assertAllowed('resume', d.view);
      return planResume(d, r, { actor: d.ctx.actor, trigger: 'resume', dirty, upstream: landingBranch(d.view) });
    },
  });
  return { task, run };
}
