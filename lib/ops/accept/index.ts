import {
  cancelled,
  busy,
  mergeConflict,
  mergeFailed,
  notAllowed,
  unexpected,
  type LazyError,
} from '../../core/errors.js';
import { liveness, selfIdentity, type ProcIdentity } from '../../core/proc.js';
import { placeOf } from '../../core/place.js';
import { randomId } from '../../core/ids.js';
import { git } from '../../core/git.js';
import { withLock } from '../../core/lock.js';
import { assertAllowed } from '../../model/table.js';
import { situatedActions } from '../../model/situation.js';
import { isTerminal } from '../../model/status.js';
import { parkStatus } from '../../model/park.js';
import type { TaskView } from '../../model/fold.js';
import { clearActive, markActive, readActive, type ActiveMarker } from '../../store/markers.js';
import { afterKill, recoverAccept, type AfterKill, type Restore } from '../../reconcile/accept-recovery.js';
import { assertNotWorkingElsewhere, branchGone } from '../../workspace/branch/index.js';
import { branchExists, removeWorktree, worktreePath } from '../../workspace/worktree.js';
import { applySquash, deleteBranch, planSquash, type Applied, type SquashPlan } from '../../workspace/merge.js';
import { acceptStashes, stashAdvice } from '../../workspace/stash.js';
import { applyReverts, planDecisions, recordDecisions, type DecisionFlags } from '../decisions.js';
import { assertClean, assertDecided, assertFamily, assertReviewed } from './guard.js';
import { taskArg } from '../resolve.js';
import type { App } from '../app.js';
import { nowIso } from '../../core/clock.js';
import { headRef, taskBranch } from '../../core/names.js';
import { landingBranch } from '../../model/landing.js';
import { acceptedCommit } from '../../model/details.js';

// accept: blocked → merging → complete, as the steps of ACCEPT_STEPS, in order. The whole
// accept runs under the task's lock, so two concurrent accepts merge exactly once. Each
// step is narrated (app.io.narrate: "accept: <label>", or "[i/n] <label>…" on a terminal),
// then run. Once preflight has claimed the task (merging), the accept's active marker names
// the step it is in and that step's `ifKilled`: the next command finds the dead accept and
// carries that rule out (lib/reconcile/accept-recovery.ts). A step that fails is settled by
// the same rule, so every abort leaves the task in the status it really had, or complete.

/** What a step may change; everything else it only reads. (The active marker is the runner's bookkeeping.) */
export type Touch = 'task ref' | 'task branch' | 'task worktree' | 'target branch' | 'target checkout';

export interface AcceptStep {
  label: string;
  touches: readonly Touch[];
  /** What is done with the task when the accept dies (or fails) inside this step. */
  ifKilled: AfterKill;
  run(a: Accepting): Promise<void>;
}

// Tests: each step's own are in test/ops/accept.test.ts, named after it (`preflight: …`,
// `squash-merge: …`, `verify: …`, `clean up: …`); the table's are there too ("the table: each
// step changes only what its entry says it may touch", "the table: a step that fails is
// settled by its own ifKilled"); a real SIGKILL inside each step: test/cli/accept-crash.test.ts.
export const ACCEPT_STEPS: readonly AcceptStep[] = [
  {
    // Refuses, changing nothing, unless the task may land as it was reviewed and decided:
    // decisions given on the command line are recorded, reverts committed on the task branch.
    // Then claims the task: the marker is written and the task reads merging.
    // Tests: "preflight: the claim names the step…", "preflight: a dirty task worktree…",
    // "preflight: subtasks stack on the parent branch…".
    label: 'preflight',
    touches: ['task ref', 'task branch', 'task worktree'],
    ifKilled: 'restore', // nothing has moved the target yet
    run: preflight,
  },
  {
    // Moves the target to the squash commit, by compare-and-swap or by a fast-forward in the
    // checkout that has it (its uncommitted work stashed and restored); planned again if the
    // target moved meanwhile. A target that keeps moving or now conflicts aborts (task ref).
    // Tests: "squash-merge: a dirty target checkout…", "…a stash that cannot be restored…",
    // "…a target that moved meanwhile…", "…a target that now conflicts…".
    label: 'squash-merge into the target',
    touches: ['task ref', 'target branch', 'target checkout'],
    ifKilled: 'settle', // the target may or may not have moved
    run: squashMerge,
  },
  {
    // The target must hold the squash commit before anything is removed; else it aborts.
    // Tests: "verify: a target that does not hold the squash commit…".
    label: 'verify the target moved',
    touches: ['task ref'],
    ifKilled: 'settle',
    run: verify,
  },
  {
    // Records complete (the session's outcome: accepted), then removes the worktree and the
    // branch; what cannot be removed, or a stash that could not be restored, is a warning.
    // Tests: "accept squash-merges exactly the task…", "clean up: what cannot be removed…".
    label: 'clean up branch and worktree',
    touches: ['task ref', 'task branch', 'task worktree'],
    ifKilled: 'settle',
    run: cleanUp,
  },
];

export interface AcceptOptions {
  decisions?: DecisionFlags;
  confirm?: (question: string) => Promise<boolean>;
  /** Runs the steps unannounced (the demo narrates its own). */
  quiet?: boolean;
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

/** One accept under way: what the steps found so far, handed from one step to the next. */
export interface Accepting {
  app: App;
  o: AcceptOptions;
  /** The step running now. */
  step: AcceptStep;
  /** The task as the last step left it. */
  v: TaskView;
  target: string;
  branch: string;
  worktree: string;
  /** Planned by preflight; planned again when the target moves meanwhile. */
  plan: SquashPlan | null;
  applied: Applied;
  /** The status the task had when it was claimed: every abort restores it. */
  restore: Restore;
  /** Written when preflight claims the task; names the step the accept is in. */
  marker: ActiveMarker | null;
  removed: { worktree: boolean; branch: boolean };
  warnings: string[];
}

export async function acceptTask(app: App, idArg: string, o: AcceptOptions = {}): Promise<AcceptReport> {
  const { id, view: before } = await taskArg(app, idArg);
  assertNotWorkingElsewhere(before, 'accept', placeOf(app.repo));
  await confirmFirst(id, before, o.confirm);
  return withLock(app.repo.lazyDir, id, async () => {
    let v = await app.store.view(id);
    if (v.status === 'merging') v = await takeOverMerge(app, v);
    // Another accept won the lock first and merged it; this one reports, it does not merge again.
    if (v.status === 'complete' && before.status !== 'complete') return alreadyAccepted(v);
    return runSteps(accepting(app, v, o));
  });
}

/** Narrates, marks and runs each step; a failure is settled by the failing step's rule. */
async function runSteps(a: Accepting): Promise<AcceptReport> {
  const { io, repo } = a.app;
  try {
    for (const [i, step] of ACCEPT_STEPS.entries()) {
      a.step = step;
      mark(a); // before it is announced: whoever sees a step announced finds it in the marker
      if (!a.o.quiet) io.narrate(i + 1, ACCEPT_STEPS.length, step.label);
      if (io.stepDelayMs) await io.clock.sleep(io.stepDelayMs);
      await step.run(a);
    }
    return report(a);
  } catch (e) {
    // Whatever failed (a git step, the store), the task must not stay in merging.
    const rule = { locked: true, rule: a.step.ifKilled };
    if (a.marker) await recoverAccept(repo, a.app.store, a.app.config, a.v.id, rule).catch(() => {});
    throw e;
  } finally {
    if (a.marker) clearActive(repo.lazyDir, a.v.id, a.marker.run);
  }
}

async function preflight(a: Accepting): Promise<void> {
  const { app } = a;
  assertAllowed('accept', a.v);
  if (!(await branchExists(app.repo, a.branch)))
    throw a.v.sessions.length ? branchGone(a.v, 'accept', placeOf(app.repo)) : noWork(a.v, a.branch);
  const config = await app.config();
  a.worktree = worktreePath(app.repo, a.v.id, config.worktree_dir);
  await assertReviewed(app, a.v, a.target, a.worktree);
  // Every pending protected file needs an explicit decision, whatever the status says.
  if (a.v.pending_violations.length) a.v = await decide(app, a.v, a.o.decisions ?? {});
  assertAllowed('accept', a.v);
  await assertFamily(app, a.v);
  await assertClean(a.v, a.worktree);
  a.plan = await planSquash(app.repo.cwd, a.target, a.branch, squashMessage(a.v));
  if (a.plan.kind === 'conflict') throw conflicting(a, a.plan);
  if (a.plan.kind === 'ok') await assertDecided(app, a.v, a.target, a.plan, config.protected ?? []);
  await claim(a, a.plan.targetOld);
}

/** Stamps merging before the target moves, so the task reads merging for the whole time it is being merged. */
async function claim(a: Accepting, targetOld: string): Promise<void> {
  const owner = selfIdentity();
  a.restore = a.v.status as Restore;
  a.marker = { task: a.v.id, run: randomId(), kind: 'accept', since: nowIso(), owner };
  mark(a);
  const details = { restore: a.restore, target: a.target, target_old: targetOld, owner: { ...owner } };
  ({ view: a.v } = await a.app.store.mutateUnlocked(a.v.id, 'accept', (d) => {
    d.transition('merging', 'accept', `merging into ${a.target}`, { details });
  }));
}

async function squashMerge(a: Accepting): Promise<void> {
  const { cwd } = a.app.repo;
  for (let attempt = 0; attempt < 3 && a.plan?.kind === 'ok'; attempt++) {
    mark(a, { squash: a.plan.commit }); // a git child that outlives this process may still land it
    a.applied = await applySquash(cwd, a.target, a.plan, (stash) => mark(a, { stash }), a.v.id);
    if (a.applied.moved) return;
    a.plan = await planSquash(cwd, a.target, a.branch, squashMessage(a.v)); // the target moved meanwhile
  }
  if (!a.plan || a.plan.kind === 'empty') return; // nothing (left) to merge
  await abort(a, a.plan.kind === 'conflict' ? 'the target moved and now conflicts' : `could not move ${a.target}`);
  throw mergeFailed(`accept aborted: ${a.target} kept moving or now conflicts; the task is ${a.restore} again`, {
    status: a.restore,
    available_actions: (await a.app.store.view(a.v.id)).available_actions,
  });
}

async function verify(a: Accepting): Promise<void> {
  const commit = squashCommit(a);
  if (!commit || (await isAncestor(a.app.repo.cwd, commit, a.target))) return;
  await abort(a, `${a.target} does not contain the squash commit`);
  throw unexpected(`accept aborted: ${a.target} does not contain the squash commit`, { commit }, 'merge_failed');
}

async function cleanUp(a: Accepting): Promise<void> {
  const { app, target } = a;
  const commit = squashCommit(a);
  ({ view: a.v } = await app.store.mutateUnlocked(a.v.id, 'accept', (d) => {
    const s = d.view.session;
    if (s) d.putSession({ ...s, ended_at: d.ctx.now, outcome: 'accepted' });
    const why = commit ? `merged into ${target} as ${commit.slice(0, 10)}` : `nothing to merge into ${target}`;
    d.transition('complete', 'accept', why, { details: { target, ...(commit ? { commit } : {}) } });
  }));
  a.removed.worktree = await removeWorktree(app.repo, a.worktree).catch((e) => {
    a.warnings.push(`worktree ${a.worktree} was not removed: ${(e as Error).message}`);
    return false;
  });
  a.removed.branch = await deleteBranch(app.repo.cwd, a.branch);
  if (!a.removed.branch) a.warnings.push(`branch ${a.branch} was not deleted`);
  const stash = a.applied.stash;
  if (stash && !stash.restored) a.warnings.push(await keptStash(app, stash.id, a.applied.checkout));
}

function accepting(app: App, v: TaskView, o: AcceptOptions): Accepting {
  return {
    app,
    o,
    step: ACCEPT_STEPS[0]!,
    v,
    target: landingBranch(v),
    branch: taskBranch(v.id),
    worktree: '',
    plan: null,
    applied: { moved: false, checkout: null, stash: null },
    restore: 'blocked',
    marker: null,
    removed: { worktree: false, branch: false },
    warnings: [],
  };
}

/** Once the task is claimed, its active marker follows the accept: the step it is in, that step's rule, its stash. */
function mark(a: Accepting, more: Partial<ActiveMarker> = {}): void {
  if (!a.marker) return;
  a.marker = { ...a.marker, step: a.step.label, if_killed: a.step.ifKilled, ...more };
  markActive(a.app.repo.lazyDir, a.marker);
}

function report(a: Accepting): AcceptReport {
  return {
    task: a.v,
    target: a.target,
    commit: squashCommit(a),
    already_accepted: false,
    branch_deleted: a.removed.branch,
    worktree_removed: a.removed.worktree,
    checkout: a.applied.checkout,
    stash: a.applied.stash,
    warnings: a.warnings,
  };
}

function alreadyAccepted(v: TaskView): AcceptReport {
  const none = { branch_deleted: false, worktree_removed: false, checkout: null, stash: null, warnings: [] };
  const landed = acceptedCommit(v);
  return { task: v, target: landingBranch(v), commit: landed, already_accepted: true, ...none };
}

const squashMessage = (v: TaskView) => `Accept task ${v.id}: ${v.goal}\n\nLazy-Task: ${v.id}\n`;
const squashCommit = (a: Accepting) => (a.plan?.kind === 'ok' ? a.plan.commit : null);

/** Asks before taking the lock: an unanswered prompt must not block every other command. */
async function confirmFirst(id: string, v: TaskView, confirm: AcceptOptions['confirm']): Promise<void> {
  if (!confirm || isTerminal(v.status)) return;
  if (await confirm(`Squash-merge ${taskBranch(id)} into ${landingBranch(v)}?`)) return;
  throw cancelled('accept cancelled: nothing was merged', {
    status: v.status,
    available_actions: v.available_actions,
  });
}

/** A task found in merging: an accept in flight elsewhere is busy; a dead one is settled by its step's rule first. */
async function takeOverMerge(app: App, v: TaskView): Promise<TaskView> {
  const owner = v.merging_owner as ProcIdentity | null;
  if (owner && liveness(owner) === 'alive')
    throw busy(`task ${v.id} is being accepted right now (pid ${owner.pid})`, { status: v.status });
  if (owner && liveness(owner) === 'unknown') {
    const why = `task ${v.id} is being merged on ${owner.host}; finish it there`;
    throw notAllowed('accept', v.status, v.available_actions, why, { host: owner.host });
  }
  const rule = afterKill(readActive(app.repo.lazyDir, v.id));
  await recoverAccept(app.repo, app.store, app.config, v.id, { locked: true, rule });
  return app.store.view(v.id);
}

/** Every abort restores the status the task actually had before the accept. */
async function abort(a: Accepting, why: string): Promise<void> {
  await a.app.store.mutateUnlocked(a.v.id, 'accept-abort', (d) => {
    if (d.status === 'merging') d.transition(a.restore, 'merge_abort', `accept aborted: ${why}`);
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

/** Names the stash that holds the user's work exactly (stash@{n}, commit, message), as git lists it now. */
async function keptStash(app: App, commit: string, checkout: string | null): Promise<string> {
  const kept = (await acceptStashes(app.repo.cwd, app.repo.commonDir)).find((s) => s.commit === commit);
  const where = kept ? stashAdvice(kept) : `stash ${commit} (git stash list shows it)`;
  return `your uncommitted changes in ${checkout} conflict with the merge and are kept in ${where}`;
}

async function isAncestor(cwd: string, commit: string, target: string): Promise<boolean> {
  const r = await git(['merge-base', '--is-ancestor', commit, headRef(target)], { cwd, allowFail: true });
  return r.code === 0;
}

const noWork = (v: TaskView, branch: string) =>
  notAllowed(
    'accept',
    v.status,
    situatedActions(v, { noBranch: true }),
    `task ${v.id} has no work to accept: branch ${branch} does not exist`,
  );

function conflicting(a: Accepting, plan: { files: string[]; detail: string }): LazyError {
  const what = plan.files.join(', ') || plan.detail;
  const todo = `unblock the task so the agent merges ${a.target} first`;
  return mergeConflict(`${a.branch} does not merge cleanly into ${a.target} (${what}); ${todo}`, {
    status: a.v.status,
    available_actions: a.v.available_actions,
    files: plan.files,
  });
}
