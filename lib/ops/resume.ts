import { assertAllowed } from '../model/table.js';
import { launchTurn } from '../agents/launch.js';
import { planResume } from '../agents/turns.js';
import { dirtyFiles, worktreePath } from '../workspace/worktree.js';
import { allowedTaskArg } from './resolve.js';
import type { App } from './app.js';
import { landingBranch } from '../model/landing.js';
import type { TurnStarted } from './turn.js';

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
