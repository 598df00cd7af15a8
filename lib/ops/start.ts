import { assertAllowed } from '../model/table.js';
import { CLARIFY_QUESTION } from '../model/attention.js';
import type { TaskView } from '../model/fold.js';
import { launchTurn } from '../agents/launch.js';
import { revParse } from '../workspace/worktree.js';
import { planStart } from '../agents/turns.js';
import type { RunRecord } from '../agents/runs.js';
import { allowedTaskArg } from './resolve.js';
import { modelName } from './create.js';
import type { App } from './app.js';
import { landingBranch } from '../model/landing.js';

export interface Started {
  task: TaskView;
  run: RunRecord | null;
}

/**
 * backlog → working. A task with no non-empty acceptance criterion launches no agent:
 * it parks as blocked with a decision asking for an observable completion condition.
 */
export async function startTask(app: App, idArg: string, o: { agent?: string; model?: string }): Promise<Started> {
  if (o.model !== undefined) modelName(o.model);
  // Like --agent, --model is the task's from now on: its later turns (unblock, answer, resume) keep it.
  const chosen = { ...(o.agent ? { agent: o.agent } : {}), ...(o.model ? { model: o.model } : {}) };
  const { id, view } = await allowedTaskArg(app, idArg, 'start');
  const config = await app.config();
  if (!view.acceptance.some((a) => a.trim())) {
    const { view: task } = await app.store.mutate(id, 'start', (d) => {
      assertAllowed('start', d.view);
      if (Object.keys(chosen).length) d.setTask(chosen);
      d.transition('working', 'start', 'started');
      d.turn({ role: 'system', kind: 'question', actor: 'system', content: CLARIFY_QUESTION });
      d.transition('blocked', 'clarify', 'no acceptance criterion: the agent was not launched', {}, 'system');
      d.summary = 'needs an acceptance criterion before an agent runs';
    });
    return { task, run: null };
  }
  if (!view.base && !view.parent) await warnDetached(app, view);
  const { view: task, run } = await launchTurn(app.repo, app.store, app.launcher, {
    id,
    op: 'start',
    agent: o.agent,
    model: o.model,
    config,
    plan: (d, r) => {
      assertAllowed('start', d.view);
      if (Object.keys(chosen).length) d.setTask(chosen);
      return planStart(d, r);
    },
  });
  return { task, run };
}

/** A task created on a detached HEAD has no branch of its own to come back to: say where its work goes. */
async function warnDetached(app: App, view: TaskView): Promise<void> {
  const upstream = landingBranch(view);
  const commit = await revParse(app.repo.cwd, upstream);
  const from = `${upstream}${commit ? ` at ${commit.slice(0, 10)}` : ''}`;
  app.io.warn(
    `task ${view.id} was created on a detached HEAD, so it has no branch to return to: ` +
      `its work starts from ${from} and accept merges it into ${upstream}`,
  );
}
