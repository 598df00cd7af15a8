import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Repo } from '../core/repo.js';
import { branchExists } from './worktree.js';
import { notAllowed, type LazyError } from '../core/errors.js';
import type { TaskView } from '../model/fold.js';
import { isReviewTurn } from '../model/review.js';
import { thisHost } from '../core/proc.js';

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

/** The newest branch head a review recorded (an ask's reply is no review), if any did. */
export const lastReviewHead = (v: Pick<TaskView, 'turns'>): string | null => {
  const t = [...v.turns].reverse().find(isReviewTurn);
  return t ? (t.details!.review as { head: string }).head : null;
};

/**
 * Whether the open session ran a turn on this machine: only then was lazy/<id> made here.
 * A task pulled from a clone that works on it has its branch here only once that clone pushed it.
 */
export const sessionRanHere = (v: Pick<TaskView, 'session' | 'changelog'>): boolean =>
  v.changelog.some(
    (c) => c.status === 'working' && c.host === thisHost() && c.timestamp >= (v.session?.started_at ?? ''),
  );

/**
 * A task whose open session works on lazy/<id>, which this clone does not have: deleted
 * outside lazy, or never here (the session ran on another machine). Recreating it from
 * the base would silently drop the earlier work from the review.
 */
export async function assertBranchKept(repo: Repo, v: TaskView, action: string): Promise<void> {
  if (v.session?.ended_at === null && !(await branchExists(repo, taskBranch(v.id)))) throw branchGone(v, action);
}

/** Why lazy/<id> is missing, for an open session: lost here, or never here. */
export function branchGone(v: TaskView, action: string): LazyError {
  const branch = taskBranch(v.id);
  if (!sessionRanHere(v)) {
    const host = [...v.changelog].reverse().find((c) => c.status === 'working')?.host ?? 'another machine';
    return notAllowed(
      action,
      v.status,
      v.available_actions,
      `task ${v.id} is worked on ${host}: its branch ${branch} is there, not in this clone ` +
        `(a pull brings it once ${host} pushes it); continue it on ${host}, or close it`,
      { branch, host },
    );
  }
  const head = lastReviewHead(v);
  return notAllowed(
    action,
    v.status,
    v.available_actions,
    `branch ${branch} of task ${v.id} was deleted outside lazy, with the work of its earlier turns; ` +
      (head
        ? `restore it with: git branch ${branch} ${head} (the last reviewed head), `
        : 'restore it with git branch, ') +
      `or close the task`,
    { branch, ...(head ? { reviewed_head: head } : {}) },
  );
}
