import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Repo } from '../core/repo.js';
import { notAllowed, type LazyError } from '../core/errors.js';
import type { TaskView } from '../model/fold.js';

// Branch names lazy derives, and the checkout's current branch read straight from HEAD.

export const taskBranch = (id: string) => `lazy/${id}`;

/** The branch checked out where lazy runs, or null on a detached HEAD. */
export function currentBranch(repo: Repo): string | null {
  try {
    const head = readFileSync(join(repo.gitDir, 'HEAD'), 'utf8').trim();
    return head.startsWith('ref: refs/heads/') ? head.slice('ref: refs/heads/'.length) : null;
  } catch {
    return null;
  }
}

/** The newest branch head a review recorded, if any turn recorded one. */
export const reviewedHead = (v: Pick<TaskView, 'turns'>): string | null => {
  for (const t of [...v.turns].reverse()) {
    const head = (t.details?.review as { head?: unknown } | undefined)?.head;
    if (typeof head === 'string') return head;
  }
  return null;
};

/**
 * A task whose open session works on lazy/<id>; when that branch is gone, recreating
 * it from the base would silently drop the earlier work from the review.
 */
export function branchGone(v: TaskView, action: string): LazyError {
  const head = reviewedHead(v);
  return notAllowed(action, v.status, v.available_actions,
    `branch ${taskBranch(v.id)} of task ${v.id} was deleted outside lazy, with the work of its earlier turns; ` +
    (head ? `restore it with: git branch ${taskBranch(v.id)} ${head} (the last reviewed head), ` : 'restore it with git branch, ') + `or close the task`,
    { branch: taskBranch(v.id), ...(head ? { reviewed_head: head } : {}) });
}
