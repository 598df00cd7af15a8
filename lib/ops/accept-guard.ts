import { git } from '../core/git.js';
import { notAllowed, unreviewedHead } from '../core/errors.js';
import { randomId } from '../core/ids.js';
import { protectedPoints, type TaskView } from '../model/fold.js';
import { parkStatus } from '../model/park.js';
import { isActive, isTerminal } from '../model/status.js';
import { refreshIndex } from '../store/listing.js';
import { reviewedHead } from '../model/review.js';
import { taskBranch, workedElsewhere } from '../workspace/branch.js';
import { isAncestor } from '../workspace/target-tips.js';
import { dirtyFiles, revParse } from '../workspace/worktree.js';
import { mergeBase, undecidedChanges } from '../workspace/review.js';
import type { App } from './app.js';

// What lands is what was reviewed, from a clean worktree, at the right place in the task
// tree: the checks accept's preflight makes under the task's lock before anything moves.

/** Accept merges (and submit hands over) the head the review recorded; a branch that moved since needs a new review. */
export async function assertReviewed(
  app: App,
  v: TaskView,
  target: string,
  worktree: string,
  action: 'accept' | 'submit' = 'accept',
): Promise<void> {
  const cwd = app.repo.cwd;
  const branch = taskBranch(v.id);
  const head = (await revParse(cwd, `refs/heads/${branch}`)) ?? '';
  const reviewed = reviewedHead((await app.store.read(v.id)).docs);
  if (reviewed?.head === head) return;
  const elsewhere = workedElsewhere(v);
  if (elsewhere && reviewed && (!(await revParse(cwd, reviewed.head)) || (await isAncestor(cwd, head, reviewed.head))))
    throw behindReview(v, branch, head, reviewed.head, elsewhere);
  const from = reviewed?.head ?? (await mergeBase(cwd, `refs/heads/${target}`, head)) ?? head;
  const range = `${from}..${head}`;
  const count = Number((await git(['rev-list', '--count', range], { cwd, allowFail: true })).stdout.trim()) || 0;
  if (!reviewed && count === 0) return; // the branch adds nothing anybody could have reviewed
  if (reviewed && count && (await onlySubtaskAccepts(app, v.id, reviewed.head, head, count))) return;
  const commits = (await git(['log', '--max-count=10', '--format=%H %s', range], { cwd, allowFail: true })).stdout
    .split('\n')
    .filter(Boolean);
  const what = reviewed
    ? `${branch} moved since it was reviewed: the review shows ${reviewed.head.slice(0, 10)}, ` +
      `the branch is now at ${head.slice(0, 10)}${count ? ` (${count} unreviewed commit(s))` : ''}`
    : `no review covers the ${count} commit(s) on ${branch}`;
  const todo =
    `see them with lazy diff ${v.id}; then lazy unblock ${v.id} -m "…" for a turn whose review covers them` +
    (reviewed ? `, or drop them with git -C ${worktree} reset --hard ${reviewed.head.slice(0, 10)}` : '');
  throw unreviewedHead(`${action} refused: ${what}; ${todo}`, {
    status: v.status,
    available_actions: v.available_actions,
    reviewed_head: reviewed?.head ?? null,
    branch_head: head,
    unreviewed_commits: commits.map((c) => c.slice(0, 40)),
    unreviewed_count: count,
  });
}

/** A branch here that lacks the work reviewed on another host: fetched before that turn ended, or not pulled since. */
function behindReview(v: TaskView, branch: string, head: string, reviewed: string, host: string) {
  return unreviewedHead(
    `accept refused: ${branch} here is at ${head.slice(0, 10)}, behind the head its review recorded ` +
      `(${reviewed.slice(0, 10)}, made on ${host}); lazy pull to fetch it, then accept`,
    {
      status: v.status,
      available_actions: v.available_actions,
      reviewed_head: reviewed,
      branch_head: head,
      host,
    },
  );
}

/**
 * Defence in depth, whatever the status says: the squash about to land may carry no
 * protected path without a decision on exactly that content. What no turn flagged is
 * recorded now (the task parks in conflict) and the accept is refused.
 */
export async function assertDecided(
  app: App,
  v: TaskView,
  target: string,
  plan: { commit: string; targetOld: string },
  globs: string[],
): Promise<void> {
  if (!globs.length) return;
  const cwd = app.repo.cwd;
  const head = (await revParse(cwd, `refs/heads/${taskBranch(v.id)}`)) ?? plan.commit;
  const base = (await mergeBase(cwd, `refs/heads/${target}`, head)) ?? plan.targetOld;
  const points = protectedPoints((await app.store.read(v.id)).docs);
  const found = await undecidedChanges(cwd, { from: plan.targetOld, to: plan.commit, head, base }, globs, points);
  if (!found.length) return;
  const files = found.map((f) => f.file);
  const run = v.current_run ?? [...v.turns].reverse().find((t) => t.run)?.run ?? randomId();
  const { view } = await app.store.mutateUnlocked(v.id, 'protect', (d) => {
    for (const f of found) d.violation({ file: f.file, run, commit: f.commit, base: f.base });
    const next = parkStatus(d.preview());
    if (next !== d.status && (d.status === 'blocked' || d.status === 'conflict'))
      d.transition(next, 'rederive', 'accept found protected files no decision covers');
  });
  throw notAllowed(
    'accept',
    view.status,
    view.available_actions,
    `the squash would land protected files nobody decided on: ${files.join(', ')}; ` +
      `decide with lazy accept ${v.id} --approve-file/--revert-file (or --approve-all/--revert-all)`,
    { pending_files: files },
  );
}

/** True when every commit after the review is the accepted squash of one of this task's subtasks (reviewed there). */
async function onlySubtaskAccepts(
  app: App,
  id: string,
  reviewed: string,
  head: string,
  count: number,
): Promise<boolean> {
  const cwd = app.repo.cwd;
  if (count > 100 || (await git(['merge-base', '--is-ancestor', reviewed, head], { cwd, allowFail: true })).code !== 0)
    return false;
  const log = (await git(['log', '--format=%H %P%x00%s%x01', `${reviewed}..${head}`], { cwd })).stdout
    .split('\x01')
    .map((r) => r.trim())
    .filter(Boolean);
  for (const rec of log) {
    const [shas = '', subject = ''] = rec.split('\0');
    const [sha, ...parents] = shas.split(' ');
    const child = /^Accept task ([0-9a-z]{8}): /.exec(subject)?.[1];
    if (!child || parents.length !== 1) return false;
    const view = await app.store.view(child).catch(() => null);
    const landed = view?.changelog.filter((c) => !c.set_aside && c.status === 'complete').at(-1)?.details?.commit;
    if (view?.parent !== id || landed !== sha) return false;
  }
  return true;
}

/** A parent may not take a child while it is active; a parent may not be merged while children are open. */
export async function assertFamily(app: App, v: TaskView): Promise<void> {
  if (v.parent) {
    const parent = await app.store.view(v.parent);
    if (isActive(parent.status))
      throw notAllowed(
        'accept',
        v.status,
        v.available_actions,
        `the parent task ${parent.id} is ${parent.status}; a subtask cannot be merged into a live worktree`,
        { parent: parent.id, parent_status: parent.status },
      );
  }
  const { rows } = await refreshIndex(app.repo.cwd, app.repo.lazyDir, app.store.reader);
  const open = rows.filter((r) => r.parent === v.id && !isTerminal(r.status)).map((r) => r.id);
  if (open.length)
    throw notAllowed(
      'accept',
      v.status,
      v.available_actions,
      `task ${v.id} has open subtasks (${open.join(', ')}); ` +
        'accept or close them first, since accepting removes the branch they build on',
      { children: open },
    );
}

/** What lands is what the branch holds: uncommitted changes in the task worktree refuse the accept. */
export async function assertClean(v: TaskView, worktree: string): Promise<void> {
  const dirty = await dirtyFiles(worktree).catch(() => []);
  if (!dirty.length) return;
  const files = `${dirty.slice(0, 5).join(', ')}${dirty.length > 5 ? ', …' : ''}`;
  throw notAllowed('accept', v.status, v.available_actions, `the task worktree has uncommitted changes: ${files}`, {
    worktree,
    files: dirty,
  });
}
