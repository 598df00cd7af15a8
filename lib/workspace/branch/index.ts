import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Repo } from '../../core/repo.js';
import { branchExists } from '../worktree.js';
import { notAllowed, type LazyError } from '../../core/errors.js';
import { lastChange, type TaskView } from '../../model/fold.js';
import { isReviewTurn } from '../../model/review.js';
import { situatedActions } from '../../model/situation.js';
import { madeHere, placeName, placeOf, type Place } from '../../core/place.js';
import { symbolicHead, taskBranch } from '../../core/names.js';
import { reviewOf } from '../../model/details.js';

// Branch names lazy derives, and the checkout's current branch read straight from HEAD.

/** A ref name component lazy accepts from stored (possibly pulled) data: no option, no `..`, no path tricks. */
export const safeRefName = (b: string) =>
  /^[A-Za-z0-9._/-]{1,200}$/.test(b) &&
  !b.includes('..') &&
  !b.includes('//') &&
  !b.startsWith('-') &&
  !b.startsWith('/') &&
  !b.endsWith('/') &&
  !b.endsWith('.lock');

/** The branch checked out where lazy runs, or null on a detached HEAD. */
export function currentBranch(repo: Repo): string | null {
  try {
    const head = readFileSync(join(repo.gitDir, 'HEAD'), 'utf8').trim();
    const prefix = symbolicHead('');
    return head.startsWith(prefix) ? head.slice(prefix.length) : null;
  } catch {
    return null;
  }
}

/** The newest branch head a review recorded (an ask's reply is no review), if any did. */
export const lastReviewHead = (v: Pick<TaskView, 'turns'>): string | null => {
  const t = [...v.turns].reverse().find(isReviewTurn);
  return t ? reviewOf(t)!.head : null;
};

/**
 * Whether the open session ran a turn in this clone: only then was lazy/<id> made here.
 * A task pulled from a clone that works on it has its branch here only once a pull fetched it.
 */
export const sessionRanHere = (v: Pick<TaskView, 'session' | 'changelog'>, here: Place): boolean =>
  v.changelog.some(
    (c) => c.status === 'working' && !!c.host && madeHere(c, here) && c.timestamp >= (v.session?.started_at ?? ''),
  );

/** Where the latest turn ran, when it was not in this clone: its host, or "another clone on <host>" (null: here). */
export function workedElsewhere(v: Pick<TaskView, 'changelog'>, here: Place): string | null {
  const last = lastChange(v, 'working');
  return last?.host && !madeHere(last, here) ? placeName(last, here) : null;
}

/** A task whose turn runs in another clone stays off limits here (comment and edit aside). The error names where. */
export function assertNotWorkingElsewhere(v: TaskView, action: string, here: Place): void {
  const host = v.status === 'working' ? workedElsewhere(v, here) : null;
  if (!host) return;
  throw notAllowed(
    action,
    v.status,
    situatedActions(v, { elsewhere: true }),
    `task ${v.id} is working on ${host}: it stays off limits here until that turn ends there ` +
      `(then lazy pull, and ${action} it here)`,
    { host },
  );
}

/**
 * A task whose open session works on lazy/<id>, which this clone does not have: deleted
 * outside lazy, or not fetched yet (the session ran on another machine). Recreating it from
 * the base would silently drop the earlier work from the review.
 */
export async function assertBranchKept(repo: Repo, v: TaskView, action: string): Promise<void> {
  if (v.session?.ended_at === null && !(await branchExists(repo, taskBranch(v.id))))
    throw branchGone(v, action, placeOf(repo));
}

/** Why lazy/<id> is missing, for a task with a session: lost here, or not fetched from where it was worked. */
export function branchGone(v: TaskView, action: string, here: Place): LazyError {
  const branch = taskBranch(v.id);
  if (!sessionRanHere(v, here)) {
    const host = workedElsewhere(v, here) ?? 'another machine';
    return notAllowed(
      action,
      v.status,
      situatedActions(v, { noBranch: true }),
      `task ${v.id} was worked on ${host}: its branch ${branch} is not in this clone yet; ` +
        `lazy pull to fetch it (work branches travel with lazy push and pull), or close the task`,
      { branch, host },
    );
  }
  const head = lastReviewHead(v);
  return notAllowed(
    action,
    v.status,
    situatedActions(v, { noBranch: true }),
    `branch ${branch} of task ${v.id} was deleted outside lazy, with the work of its earlier turns; ` +
      (head
        ? `restore it with: git branch ${branch} ${head} (the last reviewed head), `
        : 'restore it with git branch, ') +
      `or close the task`,
    { branch, ...(head ? { reviewed_head: head } : {}) },
  );
}
