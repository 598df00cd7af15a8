import type { Repo } from '../../core/repo.js';
import { git } from '../../core/git.js';
import { branchRef, taskBranch } from '../../core/names.js';
import type { Status } from '../../model/status.js';
import { branchExists, revParse } from '../worktree.js';

// An accept lands the work and deletes lazy/<id>; a follow-up or a reviewer's command on the complete task wants that
// branch back. It is made again exactly where the accepted review left it (the head the review recorded), never at
// the target (whose squash is another commit: a later push would find the branch diverged from the remote's copy),
// and only while this clone still holds that commit. One truth: the task's history names the head.

const ZERO = '0'.repeat(40);

export interface Restorable {
  id: string;
  status: Status;
  reviewed_head: string | null;
}

/** Whether lazy/<id> is gone but can be made again: a complete task whose reviewed head this clone still holds. */
export function restorable(t: Restorable, headHeld: (sha: string) => boolean): boolean {
  return t.status === 'complete' && !!t.reviewed_head && headHeld(t.reviewed_head);
}

/**
 * Makes lazy/<id> again at the reviewed head when it is gone and can be (see restorable); true when the branch is
 * there afterwards. By compare-and-swap from nothing: a branch someone made meanwhile is kept as it is.
 */
export async function restoreBranch(repo: Repo, t: Restorable): Promise<boolean> {
  const branch = taskBranch(t.id);
  if (await branchExists(repo, branch)) return true;
  if (t.status !== 'complete' || !t.reviewed_head) return false;
  if ((await revParse(repo.cwd, t.reviewed_head)) !== t.reviewed_head) return false;
  const msg = `lazy: ${branch} made again at the head its review recorded`;
  await git(['update-ref', '-m', msg, branchRef(t.id), t.reviewed_head, ZERO], { cwd: repo.cwd, allowFail: true });
  return branchExists(repo, branch);
}
