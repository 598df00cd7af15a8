import { git } from '../core/git.js';
import type { TaskView } from '../model/fold.js';
import { safeRefName } from './branch/index.js';
import { revParse } from './worktree.js';
import { branchRef, remoteBranch, remoteTrackingRef, taskBranch, trackingRef } from '../core/names.js';
import { submitOf } from '../model/details.js';

// Where a submitted task's work stands on the forge's remote, read from local refs only:
// the submission (what `lazy submit` recorded on its move into submitted), the remote's
// target as the last fetch saw it, and the remote-tracking copy of the task branch
// (refs/remotes/<remote>/lazy/<id>). Details may have been pulled: every name and commit id
// is checked before it reaches git's argv.

export interface Submission {
  /** The change log entry that recorded it: a new submission starts a new watch. */
  entry: string;
  remote: string;
  target: string;
  head: string;
  target_tip: string;
  /** refs/remotes/<remote>/lazy/<id> */
  tracking: string;
  /** refs/remotes/<remote>/<target> */
  target_ref: string;
}

const SHA = /^[0-9a-f]{40}$/;
/** The latest submission of a task (its details), or null when none is recorded or its details are unusable. */
export function submissionOf(v: Pick<TaskView, 'id' | 'changelog'>): Submission | null {
  for (let i = v.changelog.length - 1; i >= 0; i--) {
    const c = v.changelog[i]!;
    if (c.set_aside || c.status !== 'submitted' || c.trigger !== 'submit') continue;
    const { remote, target, head, target_tip: tip } = submitOf(c);
    if (typeof remote !== 'string' || typeof target !== 'string' || typeof head !== 'string') return null;
    if (!safeRefName(remote) || remote.includes('/') || !safeRefName(target) || !SHA.test(head)) return null;
    return {
      entry: c.id,
      remote,
      target,
      head,
      target_tip: typeof tip === 'string' && SHA.test(tip) ? tip : '',
      tracking: trackingRef(remote, v.id),
      target_ref: remoteTrackingRef(remote, target),
    };
  }
  return null;
}

export interface BranchNews {
  /** <remote>/lazy/<id> */
  ref: string;
  /** How many commits the remote branch has that the local branch (or the submitted head) does not. */
  count: number;
  /** The newest 50 of them. */
  commits: { sha: string; author: string; subject: string }[];
}

/** Commits someone else pushed to the submitted branch, as the last fetch saw them (null: nothing to compare). */
export async function branchNews(cwd: string, id: string, sub: Submission): Promise<BranchNews | null> {
  const remote = await revParse(cwd, sub.tracking);
  const local = (await revParse(cwd, branchRef(id))) ?? (await revParse(cwd, sub.head));
  if (!remote || !local) return null;
  const r = await git(['log', '--format=%H%x00%an%x00%s', '-n', '50', `${local}..${remote}`, '--'], {
    cwd,
    allowFail: true,
  });
  const commits = r.stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => {
      const [sha, author, subject] = l.split('\0');
      return { sha: sha!, author: author ?? '', subject: subject ?? '' };
    });
  const count = Number((await git(['rev-list', '--count', `${local}..${remote}`, '--'], { cwd })).stdout.trim()) || 0;
  return { ref: remoteBranch(sub.remote, taskBranch(id)), count, commits };
}
