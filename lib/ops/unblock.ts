import { sanitizeProse } from '../core/sanitize.js';
import { assertAllowed, availableActions, statusActions } from '../model/table.js';
import { placeOf } from '../core/place.js';
import { LazyError, notAllowed, usageError } from '../core/errors.js';
import { planFeedback } from '../agents/turns.js';
import { assertNotWorkingElsewhere } from '../workspace/branch/index.js';
import { boundedText } from './create.js';
import { applyReverts, planDecisions, recordDecisions, type DecisionFlags } from './decisions.js';
import { taskArg } from './resolve.js';
import { firstLine } from './comment.js';
import type { App } from './app.js';
import { launchText, type TurnStarted } from './turn.js';
import { answerTask } from './answer.js';

/**
 * unblock: feedback is recorded before anything runs, upstream is merged, the next turn
 * starts. On a task with a pending decision the feedback is the answer.
 */
export async function unblockTask(
  app: App,
  idArg: string,
  text: string,
  flags: DecisionFlags = {},
  budget: TaskBudget = {},
): Promise<TurnStarted> {
  const { id, view } = await taskArg(app, idArg);
  assertNotWorkingElsewhere(view, 'unblock', placeOf(app.repo));
  assertAllowed('unblock', view);
  // The task's own budget is recorded before the launch, whose budget check (lib/agents/budget.ts) then reads it.
  await recordBudget(app, id, budget);
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

/** unblock --budget N / --budget-usd X: this task's own limits, over the repository's budget.task_* from now on. */
export interface TaskBudget {
  tokens?: number;
  cost_usd?: number;
}

async function recordBudget(app: App, id: string, b: TaskBudget): Promise<void> {
  if (b.tokens === undefined && b.cost_usd === undefined) return;
  if (b.tokens !== undefined && !(Number.isInteger(b.tokens) && b.tokens >= 0))
    throw usageError(`--budget takes a whole number of tokens (got ${b.tokens})`);
  if (b.cost_usd !== undefined && !(Number.isFinite(b.cost_usd) && b.cost_usd >= 0))
    throw usageError(`--budget-usd takes a number of US dollars (got ${b.cost_usd})`);
  await app.store.mutate(id, 'unblock', (d) => {
    assertAllowed('unblock', d.view);
    const budget = { ...d.view.budget };
    if (b.tokens !== undefined) budget.tokens = b.tokens;
    if (b.cost_usd !== undefined) budget.cost_usd = b.cost_usd;
    d.setTask({ budget });
  });
}
