import { existsSync } from 'node:fs';
import { sanitizeProse } from '../core/sanitize.js';
import { placeOf } from '../core/place.js';
import { assertAllowed } from '../model/table.js';
import type { TaskView } from '../model/fold.js';
import { assertNotWorkingElsewhere } from '../workspace/branch/index.js';
import { branchExists, commitAll, removeWorktree, worktreePath } from '../workspace/worktree.js';
import { deleteBranch, unmergedCommits } from '../workspace/merge.js';
import { firstLine } from './comment.js';
import { boundedText } from './create.js';
import { taskArg } from './resolve.js';
import type { App } from './app.js';
import { taskBranch } from '../core/names.js';

export interface CloseInput {
  reason?: string;
  deleteBranch?: boolean;
}

export interface Closed {
  task: TaskView;
  worktree_removed: boolean;
  /** The commit that kept the worktree's uncommitted changes, when there were any. */
  saved_commit: string | null;
  branch: { name: string; deleted: boolean; unmerged_commits: number } | null;
}

/**
 * close and reject both end in abandoned; they differ in intent, recorded as the
 * trigger. The session ends and the worktree goes; a branch holding commits merged
 * nowhere is kept unless --delete-branch says otherwise.
 */
export async function closeTask(
  app: App,
  idArg: string,
  action: 'close' | 'reject',
  input: CloseInput,
): Promise<Closed> {
  const { id, view } = await taskArg(app, idArg);
  assertNotWorkingElsewhere(view, action, placeOf(app.repo));
  assertAllowed(action, view); // before the lock too: refused at once, not after waiting out an accept
  const reason = input.reason?.trim()
    ? boundedText('the reason', sanitizeProse(input.reason.trim()))
    : action === 'close'
      ? 'closed'
      : 'rejected';
  const { view: task } = await app.store.mutate(id, action, (d) => {
    assertNotWorkingElsewhere(d.view, action, placeOf(app.repo));
    assertAllowed(action, d.view);
    d.transition('abandoned', action, reason);
    const s = d.view.session;
    if (s) d.putSession({ ...s, ended_at: d.ctx.now, outcome: action === 'close' ? 'closed' : 'rejected' });
    d.summary = firstLine(reason);
  });
  const config = await app.config();
  const wt = worktreePath(app.repo, id, config.worktree_dir);
  // Uncommitted work (what a crash leaves) is committed on the branch, never deleted with the worktree.
  let unsaved: Error | null = null;
  const saved = !existsSync(wt)
    ? null
    : await commitAll(
        wt,
        `lazy: keep uncommitted work when the task was ${action === 'close' ? 'closed' : 'rejected'}\n\n` +
          `Lazy-Task: ${id}\n`,
      ).catch((e: Error) => {
        unsaved = e;
        return null;
      });
  // Work that could not be committed stays in its worktree, never removed with it.
  if (unsaved) app.io.warn(`the worktree ${wt} was kept: ${(unsaved as Error).message}`);
  const worktree_removed = unsaved ? false : await removeWorktree(app.repo, wt);
  const name = taskBranch(id);
  if (!(await branchExists(app.repo, name))) return { task, worktree_removed, saved_commit: saved, branch: null };
  const unmerged = await unmergedCommits(app.repo.cwd, name);
  const deleted = input.deleteBranch || unmerged === 0 ? await deleteBranch(app.repo.cwd, name) : false;
  return { task, worktree_removed, saved_commit: saved, branch: { name, deleted, unmerged_commits: unmerged } };
}
