import { git } from '../../core/git.js';
import { notAllowed, unreviewedHead } from '../../core/errors.js';
import { placeOf } from '../../core/place.js';
import { randomId } from '../../core/ids.js';
import { protectedPoints, type TaskView } from '../../model/fold.js';
import { parkStatus } from '../../model/park.js';
import { situatedActions } from '../../model/situation.js';
import { isActive, isTerminal } from '../../model/status.js';
import { refreshIndex } from '../../store/listing/index.js';
import { workedElsewhere } from '../../workspace/branch/index.js';
import { isAncestor } from '../../workspace/target-tips.js';
import { dirtyFiles, revParse } from '../../workspace/worktree.js';
import { mergeBase, undecidedChanges } from '../../workspace/review.js';
import type { App } from '../app.js';
import { branchRef, headRef, taskBranch } from '../../core/names.js';
import { lastAccept } from '../../model/details.js';

// What lands is what was reviewed, from a clean worktree, at the right place in the task
// tree: the checks accept's preflight makes under the task's lock before anything moves.

/**
 * Where the task branch stands against the head its latest review recorded, as accept and submit judge it: null
 * when they would land it; `behind` when the branch here lacks the reviewed head (reviewed on `host`, not pulled
 * since); `unreviewed` when it holds commits no review covers (made after the turn ended, during an ask, or
 * pulled from a teammate's push). Accept's refusal and `lazy show` both read this one fact.
 */
export interface ReviewGap {
  kind: 'behind' | 'unreviewed';
  branch: string;
  branch_head: string;
  reviewed_head: string | null;
  /** The commits no review covers (`unreviewed`), and the first 10 of them. */
  count: number;
  commits: string[];
  /** behind: the host whose turn the review recorded. */
  host: string | null;
  /** Subtasks an agent accepted into the branch after the review (no person has seen them land). */
  agent_accepted: string[];
}

export async function reviewGap(app: App, v: TaskView, target: string): Promise<ReviewGap | null> {
  const cwd = app.repo.cwd;
  const branch = taskBranch(v.id);
  const head = (await revParse(cwd, headRef(branch))) ?? '';
  const reviewed = v.reviewed_head;
  if (reviewed === head) return null;
  const gap = { branch, branch_head: head, reviewed_head: reviewed, host: null, agent_accepted: [] };
  const elsewhere = workedElsewhere(v, placeOf(app.repo));
  if (elsewhere && reviewed && (!(await revParse(cwd, reviewed)) || (await isAncestor(cwd, head, reviewed))))
    return { ...gap, kind: 'behind', count: 0, commits: [], host: elsewhere };
  const from = reviewed ?? (await mergeBase(cwd, headRef(target), head)) ?? head;
  const range = `${from}..${head}`;
  const count = Number((await git(['rev-list', '--count', range], { cwd, allowFail: true })).stdout.trim()) || 0;
  if (!reviewed && count === 0) return null; // the branch adds nothing anybody could have reviewed
  const subtasks = reviewed && count ? await subtaskAccepts(app, v.id, reviewed, head, count) : null;
  if (subtasks?.reviewed) return null;
  const commits = (await git(['log', '--max-count=10', '--format=%H', range], { cwd, allowFail: true })).stdout
    .split('\n')
    .filter(Boolean);
  return { ...gap, kind: 'unreviewed', count, commits, agent_accepted: subtasks?.byAgent ?? [] };
}

/** Accept merges (and submit hands over) the head the review recorded; a branch that moved since needs a new review. */
export async function assertReviewed(
  app: App,
  v: TaskView,
  target: string,
  worktree: string,
  action: 'accept' | 'submit' = 'accept',
): Promise<void> {
  const gap = await reviewGap(app, v, target);
  if (!gap) return;
  const { branch, branch_head: head, reviewed_head: reviewed, count } = gap;
  if (gap.kind === 'behind') throw behindReview(v, branch, head, reviewed!, gap.host!);
  const byAgent = gap.agent_accepted.length
    ? ` (subtask ${gap.agent_accepted.join(', ')} accepted by an agent after that review, which no person has seen)`
    : '';
  const what = reviewed
    ? `${branch} moved since it was reviewed: the review shows ${reviewed.slice(0, 10)}, ` +
      `the branch is now at ${head.slice(0, 10)}${count ? ` (${count} unreviewed commit(s))` : ''}${byAgent}`
    : `no review covers the ${count} commit(s) on ${branch}`;
  const todo =
    `see them with lazy diff ${v.id}; then lazy unblock ${v.id} -m "…" for a turn whose review covers them` +
    (reviewed ? `, or drop them with git -C ${worktree} reset --hard ${reviewed.slice(0, 10)}` : '');
  throw unreviewedHead(`${action} refused: ${what}; ${todo}`, {
    status: v.status,
    available_actions: situatedActions(v, { unreviewed: true }),
    reviewed_head: reviewed,
    branch_head: head,
    unreviewed_commits: gap.commits,
    unreviewed_count: count,
    ...(gap.agent_accepted.length ? { agent_accepted: gap.agent_accepted } : {}),
  });
}

/** A branch here that lacks the work reviewed on another host: fetched before that turn ended, or not pulled since. */
function behindReview(v: TaskView, branch: string, head: string, reviewed: string, host: string) {
  return unreviewedHead(
    `accept refused: ${branch} here is at ${head.slice(0, 10)}, behind the head its review recorded ` +
      `(${reviewed.slice(0, 10)}, made on ${host}); lazy pull to fetch it, then accept`,
    {
      status: v.status,
      available_actions: situatedActions(v, { unreviewed: true }),
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
  const head = (await revParse(cwd, branchRef(v.id))) ?? plan.commit;
  const base = (await mergeBase(cwd, headRef(target), head)) ?? plan.targetOld;
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

/**
 * Whether every commit after the review is the accepted squash of one of this task's subtasks,
 * reviewed there and accepted by a person. An agent's accept does not count, whatever the
 * subtask's own review said: the parent's person has not seen that work land on the parent
 * (an ended turn's agent, or a process it left, could otherwise slip it past their review).
 */
async function subtaskAccepts(
  app: App,
  id: string,
  reviewed: string,
  head: string,
  count: number,
): Promise<{ reviewed: boolean; byAgent: string[] }> {
  const cwd = app.repo.cwd;
  const no = { reviewed: false, byAgent: [] };
  if (count > 100 || (await git(['merge-base', '--is-ancestor', reviewed, head], { cwd, allowFail: true })).code !== 0)
    return no;
  const log = (await git(['log', '--format=%H %P%x00%s%x01', `${reviewed}..${head}`], { cwd })).stdout
    .split('\x01')
    .map((r) => r.trim())
    .filter(Boolean);
  const byAgent: string[] = [];
  for (const rec of log) {
    const [shas = '', subject = ''] = rec.split('\0');
    const [sha, ...parents] = shas.split(' ');
    const child = /^Accept task ([0-9a-z]{8}): /.exec(subject)?.[1];
    if (!child || parents.length !== 1) return no;
    const view = await app.store.view(child).catch(() => null);
    const landing = view ? lastAccept(view) : null;
    if (!landing || view?.parent !== id || landing.commit !== sha) return no;
    if (landing.actor === 'agent') byAgent.push(child);
  }
  return { reviewed: !byAgent.length, byAgent };
}

/** A parent may not take a child while it is active; a parent may not be merged while children are open. */
export async function assertFamily(app: App, v: TaskView): Promise<void> {
  if (v.parent) {
    const parent = await app.store.view(v.parent);
    if (isActive(parent.status))
      throw notAllowed(
        'accept',
        v.status,
        situatedActions(v, { parentActive: true }),
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
      situatedActions(v, { openChildren: true }),
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
