import { aborted, busy, mergeConflict, mergeFailed, noTarget, notAllowed, unexpected } from '../core/errors.js';
import { identityOf, liveness, type ProcIdentity } from '../core/proc.js';
import { randomId } from '../core/ids.js';
import { withLock } from '../store/lock.js';
import { refreshIndex } from '../store/listing.js';
import { assertAllowed } from '../model/table.js';
import { isActive, isTerminal } from '../model/status.js';
import { parkStatus } from '../model/park.js';
import type { TaskView } from '../model/fold.js';
import { clearActive, markActive, readActive } from '../agents/runs.js';
import { recoverAccept } from '../reconcile/accept-recovery.js';
import { taskBranch } from '../workspace/branch.js';
import { branchExists, dirtyFiles, removeWorktree, worktreePath } from '../workspace/worktree.js';
import { applySquash, deleteBranch, planSquash, type Applied } from '../workspace/merge.js';
import { git } from '../core/git.js';
import { acceptStashes, stashAdvice } from '../workspace/stash.js';
import { applyReverts, planDecisions, recordDecisions, type DecisionFlags } from './decisions.js';
import { assertDecided, assertReviewed } from './accept-guard.js';
import { taskArg } from './resolve.js';
import type { App } from './app.js';

// accept: blocked → merging → complete. The whole accept runs under the task's lock, so
// two concurrent accepts merge exactly once; every abort restores the status the task
// really had. The phase table below is what is narrated and what runs.

export const ACCEPT_PHASES = [
  'preflight',
  'squash-merge into the target',
  'verify the target moved',
  'clean up branch and worktree',
] as const;

export interface AcceptOptions {
  decisions?: DecisionFlags;
  confirm?: (question: string) => Promise<boolean>;
  narrate?: (index: number, total: number, label: string) => void;
}

export interface AcceptReport {
  task: TaskView;
  target: string;
  commit: string | null;
  already_accepted: boolean;
  branch_deleted: boolean;
  worktree_removed: boolean;
  /** The checkout that had the target branch checked out, when one did. */
  checkout: string | null;
  stash: Applied['stash'];
  warnings: string[];
}

const phaseDelay = () => Number(process.env.LAZY_PHASE_DELAY_MS) || 0;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The branch a task's accepted work lands on: its parent's branch, or the branch it came from. */
export const targetOf = (v: Pick<TaskView, 'parent' | 'base' | 'session'>) =>
  v.parent ? taskBranch(v.parent) : (v.session?.base ?? v.base);

export async function acceptTask(app: App, idArg: string, o: AcceptOptions = {}): Promise<AcceptReport> {
  const { id, view: before } = await taskArg(app, idArg);
  // Ask before taking the lock: an unanswered prompt must not block every other command.
  if (
    o.confirm &&
    !isTerminal(before.status) &&
    !(await o.confirm(`Squash-merge ${taskBranch(id)} into ${targetOf(before) ?? '?'}?`))
  ) {
    throw aborted('accept aborted: nothing was changed', {
      status: before.status,
      available_actions: before.available_actions,
    });
  }
  return withLock(app.repo.lazyDir, id, async () => {
    let v = await app.store.view(id);
    const target = targetOf(v);
    if (v.status === 'merging') v = await takeOverMerge(app, v);
    if (v.status === 'complete' && before.status !== 'complete') {
      // Another accept won the lock first and merged it; this one reports, it does not merge again.
      const commit = v.changelog.filter((c) => !c.set_aside && c.status === 'complete').at(-1)?.details?.commit;
      return {
        task: v,
        target: target ?? '',
        commit: typeof commit === 'string' ? commit : null,
        already_accepted: true,
        branch_deleted: false,
        worktree_removed: false,
        checkout: null,
        stash: null,
        warnings: [],
      };
    }
    const phase = async (i: number) => {
      o.narrate?.(i + 1, ACCEPT_PHASES.length, ACCEPT_PHASES[i]!);
      if (phaseDelay()) await sleep(phaseDelay());
    };
    await phase(0);
    assertAllowed('accept', v);
    if (!target)
      throw noTarget(`task ${id} has no branch to merge into (created on a detached HEAD)`, { status: v.status });
    const branch = taskBranch(id);
    if (!(await branchExists(app.repo, branch)))
      throw notAllowed(
        'accept',
        v.status,
        v.available_actions,
        `task ${id} has no work to accept: branch ${branch} does not exist`,
      );
    const config = await app.config();
    const wt = worktreePath(app.repo, id, config.worktree_dir);
    await assertReviewed(app, v, target, wt);
    // Every pending protected file needs an explicit decision, whatever the status says.
    if (v.pending_violations.length) v = await decide(app, v, o.decisions ?? {});
    assertAllowed('accept', v);
    await assertFamily(app, v);
    const dirty = await dirtyFiles(wt).catch(() => []);
    if (dirty.length)
      throw notAllowed(
        'accept',
        v.status,
        v.available_actions,
        `the task worktree has uncommitted changes: ${dirty.slice(0, 5).join(', ')}${dirty.length > 5 ? ', …' : ''}`,
        { worktree: wt, files: dirty },
      );
    const message = `Accept task ${id}: ${v.goal}\n\nLazy-Task: ${id}\n`;
    let plan = await planSquash(app.repo.cwd, target, branch, message);
    if (plan.kind === 'conflict') {
      throw mergeConflict(
        `${branch} does not merge cleanly into ${target} (${plan.files.join(', ') || plan.detail}); unblock the task so the agent merges ${target} first`,
        { status: v.status, available_actions: v.available_actions, files: plan.files },
      );
    }
    if (plan.kind === 'ok') await assertDecided(app, v, target, plan, config.protected ?? []);

    const restore = v.status as 'blocked';
    const owner = identityOf(process.pid);
    const marker = { task: id, run: randomId(), kind: 'accept' as const, since: new Date().toISOString(), owner };
    markActive(app.repo.lazyDir, marker);
    try {
      // merging is stamped at the start of the merge phase, so the task reads merging for
      // the whole time it is being merged.
      await app.store.mutateUnlocked(id, 'accept', (d) => {
        d.transition('merging', 'accept', `merging into ${target}`, {
          details: { restore, target, target_old: plan.kind === 'conflict' ? '' : plan.targetOld, owner: { ...owner } },
        });
      });
      await phase(1);
      let applied: Applied = { moved: false, checkout: null, stash: null };
      for (let attempt = 0; attempt < 3 && plan.kind === 'ok'; attempt++) {
        applied = await applySquash(
          app.repo.cwd,
          target,
          plan,
          (stash) => markActive(app.repo.lazyDir, { ...marker, stash }),
          id,
        );
        if (applied.moved) break;
        plan = await planSquash(app.repo.cwd, target, branch, message); // the target moved meanwhile
      }
      if (plan.kind === 'conflict' || (plan.kind === 'ok' && !applied.moved)) {
        await abort(
          app,
          id,
          restore,
          plan.kind === 'conflict' ? 'the target moved and now conflicts' : `could not move ${target}`,
        );
        throw mergeFailed(`accept aborted: ${target} kept moving or now conflicts; the task is ${restore} again`, {
          status: restore,
          available_actions: (await app.store.view(id)).available_actions,
        });
      }
      await phase(2);
      const commit = plan.kind === 'ok' ? plan.commit : null;
      if (commit && !(await isAncestor(app.repo.cwd, commit, target))) {
        await abort(app, id, restore, `${target} does not contain the squash commit`);
        throw unexpected(`accept aborted: ${target} does not contain the squash commit`, { commit }, 'merge_failed');
      }
      await phase(3);
      const { view: task } = await app.store.mutateUnlocked(id, 'accept', (d) => {
        const s = d.view.session;
        if (s) d.putSession({ ...s, ended_at: d.ctx.now, outcome: 'accepted' });
        d.transition(
          'complete',
          'accept',
          commit ? `merged into ${target} as ${commit.slice(0, 10)}` : `nothing to merge into ${target}`,
          { details: { target, ...(commit ? { commit } : {}) } },
        );
      });
      const warnings: string[] = [];
      const worktree_removed = await removeWorktree(app.repo, wt).catch((e) => {
        warnings.push(`worktree ${wt} was not removed: ${(e as Error).message}`);
        return false;
      });
      const branch_deleted = await deleteBranch(app.repo.cwd, branch);
      if (!branch_deleted) warnings.push(`branch ${branch} was not deleted`);
      if (applied.stash && !applied.stash.restored)
        warnings.push(await keptStash(app, applied.stash.id, applied.checkout));
      return {
        task,
        target,
        commit,
        already_accepted: false,
        branch_deleted,
        worktree_removed,
        checkout: applied.checkout,
        stash: applied.stash,
        warnings,
      };
    } catch (e) {
      // Whatever failed (a git step, the store), the task must not stay in merging:
      // finish it if the target already holds the squash commit, else restore it.
      await recoverAccept(app.repo, app.store, app.config, id, { locked: true }).catch(() => {});
      throw e;
    } finally {
      if (readActive(app.repo.lazyDir, id)?.run === marker.run) clearActive(app.repo.lazyDir, id, marker.run);
    }
  });
}

/** Names the stash that holds the user's work exactly (stash@{n}, commit, message), as git lists it now. */
async function keptStash(app: App, commit: string, checkout: string | null): Promise<string> {
  const kept = (await acceptStashes(app.repo.cwd, app.repo.commonDir)).find((s) => s.commit === commit);
  return `your uncommitted changes in ${checkout} conflict with the merge and are kept in ${kept ? stashAdvice(kept) : `stash ${commit} (git stash list shows it)`}`;
}

/** A task found in merging: an accept in flight elsewhere is busy; a dead one is finished or rolled back first. */
async function takeOverMerge(app: App, v: TaskView): Promise<TaskView> {
  const owner = v.merging_owner as ProcIdentity | null;
  if (owner && liveness(owner) === 'alive')
    throw busy(`task ${v.id} is being accepted right now (pid ${owner.pid})`, { status: v.status });
  if (owner && liveness(owner) === 'unknown') {
    throw notAllowed(
      'accept',
      v.status,
      v.available_actions,
      `task ${v.id} is being merged on ${owner.host}; finish it there`,
      { host: owner.host },
    );
  }
  await recoverAccept(app.repo, app.store, app.config, v.id, { locked: true });
  return app.store.view(v.id);
}

/** A parent may not take a child while it is active; a parent may not be merged while children are open. */
async function assertFamily(app: App, v: TaskView): Promise<void> {
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
      `task ${v.id} has open subtasks (${open.join(', ')}); accept or close them first, since accepting removes the branch they build on`,
      { children: open },
    );
}

async function isAncestor(cwd: string, commit: string, target: string): Promise<boolean> {
  return (
    (await git(['merge-base', '--is-ancestor', commit, `refs/heads/${target}`], { cwd, allowFail: true })).code === 0
  );
}

/** Every abort restores the status the task actually had before the accept. */
async function abort(app: App, id: string, restore: 'blocked' | 'conflict', why: string): Promise<void> {
  await app.store.mutateUnlocked(id, 'accept-abort', (d) => {
    if (d.status === 'merging') d.transition(restore, 'merge_abort', `accept aborted: ${why}`);
  });
}

/** Records the decision on every pending protected file (and reverts), re-deriving the status. */
async function decide(app: App, v: TaskView, flags: DecisionFlags): Promise<TaskView> {
  const planned = await applyReverts(app, v, planDecisions(v, flags, 'accept'));
  const { view } = await app.store.mutateUnlocked(v.id, 'decide', (d) => {
    recordDecisions(d, planned);
    const next = parkStatus(d.preview());
    if (next !== d.status && (d.status === 'blocked' || d.status === 'conflict'))
      d.transition(next, 'accept', 'every protected file has a decision');
  });
  return view;
}
