import { git } from '../core/git.js';
import { notAllowed } from '../core/errors.js';
import { placeOf } from '../core/place.js';
import type { TaskView } from '../model/fold.js';
import { branchGone } from '../workspace/branch/index.js';
import { branchExists } from '../workspace/worktree.js';
import { taskArg } from './resolve.js';
import type { App } from './app.js';
import { taskBranch } from '../core/names.js';
import { landingBranch } from '../model/landing.js';
import { acceptedCommit } from '../model/details.js';

export interface Diff {
  task: TaskView;
  branch: string;
  base: string;
  stat: boolean;
  text: string;
}

/** The task branch against its base (merge-base), or the accepted commit once merged. */
/** `color`: git colours the diff (a person reads it on a terminal); otherwise never, whatever color.ui says. */
export async function taskDiff(app: App, idArg: string, stat: boolean, color = false): Promise<Diff> {
  const { id, view } = await taskArg(app, idArg);
  const branch = taskBranch(id);
  const base = landingBranch(view);
  const mode = [color ? '--color=always' : '--no-color', ...(stat ? ['--stat'] : [])];
  if (await branchExists(app.repo, branch)) {
    const mb = (await git(['merge-base', base, branch], { cwd: app.repo.cwd, allowFail: true })).stdout.trim() || base;
    const r = await git(['diff', ...mode, mb, branch], { cwd: app.repo.cwd });
    return { task: view, branch, base, stat, text: r.stdout };
  }
  const accepted = acceptedCommit(view);
  if (accepted && /^[0-9a-f]{40}$/.test(accepted)) {
    const r = await git(['show', '--format=', ...mode, accepted], { cwd: app.repo.cwd });
    return { task: view, branch: accepted, base, stat, text: r.stdout };
  }
  if (view.sessions.length) throw branchGone(view, 'diff', placeOf(app.repo));
  throw notAllowed('diff', view.status, view.available_actions, `task ${id} has no branch yet (start it first)`);
}
