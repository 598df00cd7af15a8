import { LazyError, notAllowed } from '../core/errors.js';
import { assertAllowed } from '../model/table.js';
import { situatedActions } from '../model/situation.js';
import type { TaskView } from '../model/fold.js';
import { oneLine, prBody } from '../model/pr-body.js';
import { standingPr } from '../model/submission.js';
import { withLock } from '../core/lock.js';
import { branchExists, revParse, worktreePath } from '../workspace/worktree.js';
import { defaultRemote } from '../sync/remote.js';
import { pushSubmission } from '../sync/submit-push.js';
import { assertReviewed } from './accept/guard.js';
import { prCommandOf, runPrCommand, type PrRun } from './pr-command.js';
import { allowedTaskArg } from './resolve.js';
import type { App } from './app.js';
import type { ReconcileAction } from '../reconcile/action.js';
import { headRef, remoteTrackingRef, taskBranch } from '../core/names.js';
import { landingBranch } from '../model/landing.js';

// lazy submit: the hand-off to a forge. The reviewed branch goes to refs/heads/lazy/<id> on
// the remote (fast-forward only), the task moves blocked → submitted, the configured PR
// command runs, its outcome is recorded as a submission turn, and the task ref follows,
// so teammates see the task submitted with its pull request. On a submitted task the same
// command is the retry: it pushes again, with no transition. A pull request a submission recorded
// stands until it is merged or closed upstream or the task is reopened: while it stands, a submit
// (the retry, or the next hand-off after unblock) pushes to its branch and keeps it, and the PR
// command does not run again (`gh pr create` refuses a second PR for one branch).

export interface Submitted {
  task: TaskView;
  remote: string;
  branch: string;
  target: string;
  head: string;
  /** The task was submitted already: this was a retry. */
  retried: boolean;
  /** The PR command's run; null when forge.pr_command is not set or the task's pull request stands (`url`). */
  pr: PrRun | null;
  url: string | null;
  /** Why the task ref could not follow (the submission itself stands); null when it did. */
  push_error: { code: string; message: string; exit: number } | null;
}

/** 7 when the PR command failed (the task stays submitted, the failure recorded), else the last push's verdict. */
export const submitExit = (s: Submitted) => (s.pr?.error ? 7 : (s.push_error?.exit ?? 0));

export async function submitTask(app: App, idArg: string, remoteArg?: string): Promise<Submitted> {
  const { id, view } = await allowedTaskArg(app, idArg, 'submit');
  const remote = await defaultRemote(app.repo, remoteArg);
  // Refused before anything moves: an untrusted or unparsable command is known now.
  const argv = prCommandOf(await app.config());
  const target = landingBranch(view);
  const branch = taskBranch(id);
  const handed = await withLock(app.repo.lazyDir, id, () => handOver(app, id, remote, target));
  const pr =
    argv && !handed.kept
      ? await runPrCommand(argv, app.repo.top, {
          id,
          branch,
          base: target,
          title: oneLine(handed.task.goal),
          body: prBody(handed.task),
        })
      : null;
  const { view: task } = await app.store.mutate(id, 'submission', (d) => {
    d.turn({
      role: 'system',
      kind: 'submission',
      content: handed.kept ? `pushed; the pull request ${handed.kept} stands` : outcomeLine(pr),
      details: { ...record(remote, branch, handed.head, pr), ...(handed.kept ? { url: handed.kept } : {}) },
    });
  });
  // The task ref follows the transition and the record (the branch is there already).
  const push_error = await pushSubmission(app.repo, remote, id).then(
    () => null,
    (e: unknown) => {
      if (!(e instanceof LazyError)) throw e;
      app.io.warn(`task ${id} is submitted here, but its record did not reach ${remote}: ${e.message}`);
      return { code: e.code, message: e.message, exit: e.exitCode };
    },
  );
  // From now on this clone watches it upstream (and records that it saw the remote branch it pushed).
  const { settleSubmitted } = await import('../reconcile/upstream/index.js');
  const actions: ReconcileAction[] = [];
  await settleSubmitted({ repo: app.repo, store: app.store, config: app.config }, actions);
  for (const a of actions) if (a.warn) app.io.warn(`task ${a.task}: ${a.detail}`);
  return {
    task,
    remote,
    branch,
    target,
    head: handed.head,
    retried: handed.retried,
    pr,
    url: handed.kept ?? pr?.url ?? null,
    push_error,
  };
}

/**
 * Under the task's lock: the reviewed branch and the task ref as they are reach the remote
 * together or not at all (a remote that moved on refuses both: exit 5, nothing changed
 * here), then blocked → submitted with what U's upstream detection reads back.
 */
async function handOver(app: App, id: string, remote: string, target: string) {
  const v = await app.store.view(id);
  assertAllowed('submit', v);
  const branch = taskBranch(id);
  if (!(await branchExists(app.repo, branch)))
    throw notAllowed(
      'submit',
      v.status,
      situatedActions(v, { noBranch: true }),
      `task ${id} has no work to submit: no branch ${branch}`,
    );
  await assertReviewed(app, v, target, worktreePath(app.repo, id, (await app.config()).worktree_dir), 'submit');
  const head = (await revParse(app.repo.cwd, headRef(branch)))!;
  const target_tip =
    (await revParse(app.repo.cwd, remoteTrackingRef(remote, target))) ??
    (await revParse(app.repo.cwd, headRef(target)));
  await pushSubmission(app.repo, remote, id);
  const kept = standingPr(v.turns, v.changelog);
  if (v.status === 'submitted') return { task: v, head, retried: true, kept };
  const { view: task } = await app.store.mutateUnlocked(id, 'submit', (d) => {
    assertAllowed('submit', d.view);
    const details = { remote, branch, target, head, target_tip };
    d.transition('submitted', 'submit', `submitted to ${remote} as ${branch}`, { details });
  });
  return { task, head, retried: false, kept };
}

function outcomeLine(pr: PrRun | null): string {
  if (!pr) return 'pushed; no forge.pr_command configured';
  if (pr.error) return `PR command failed: ${pr.error}`;
  if (pr.url && pr.exit_code !== 0) return `the pull request exists already: ${pr.url}`;
  return pr.url ? `opened ${pr.url}` : 'PR command succeeded; it printed no URL';
}

function record(remote: string, branch: string, head: string, pr: PrRun | null) {
  return {
    remote,
    branch,
    head,
    ...(pr
      ? {
          command: pr.command.join(' '),
          ...(pr.exit_code !== null ? { exit_code: pr.exit_code } : {}),
          ...(pr.url ? { url: pr.url } : {}),
          ...(pr.error ? { error: pr.error } : {}),
        }
      : {}),
  };
}
