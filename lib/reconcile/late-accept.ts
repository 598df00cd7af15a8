import { git } from '../core/git.js';
import { LazyError } from '../core/errors.js';
import type { ChangeView, TaskView } from '../model/fold.js';
import { TERMINAL } from '../model/status.js';
import { findAccepted } from '../workspace/merge.js';
import { isAncestor } from '../workspace/target-tips.js';
import type { ReconcileAction } from './action.js';
import { completeLanded, type SweepDeps } from './complete.js';
import { branchRef, headRef } from '../core/names.js';
import { abortOf, mergingOf } from '../model/details.js';

// An accept SIGKILLed while its git child moves the target: the next command rolls the task
// back (nothing had landed yet), then the orphaned `git update-ref` lands the squash anyway.
// The evidence is the rollback (a system merge_abort after the merging entry that names the
// target and its tip) plus the target holding this accept's squash commit: the one the marker
// recorded before the move, else the accept's trailer commit since that tip, whose tree takes
// all of the task branch. The merged-branch sweep completes such a task while the rollback is
// still its latest change; doctor names the rest (accept_landed_after_rollback).

export interface LateAccept {
  commit: string;
  target: string;
  /** The rollback is still the task's latest change and the commit holds all of its branch: nothing happened since. */
  current: boolean;
  rollback: ChangeView;
}

/** The squash of a rolled-back accept that landed on its target afterwards, or null. */
export async function landedAfterRollback(cwd: string, v: TaskView): Promise<LateAccept | null> {
  if (TERMINAL.includes(v.status)) return null;
  const log = v.changelog.filter((c) => !c.set_aside);
  let at = log.length - 1;
  while (at >= 0 && !(log[at]!.trigger === 'merge_abort' && log[at]!.actor === 'system' && log[at]!.from === 'merging'))
    at--;
  const rollback = log[at];
  const merging = log
    .slice(0, at)
    .reverse()
    .find((c) => c.status === 'merging');
  const { target, target_old: since } = mergingOf(merging);
  // An accept rolled back by `restore` (killed in preflight) never started moving the target.
  if (!rollback || abortOf(rollback).if_killed === 'restore' || !target) return null;
  const { squash } = abortOf(rollback);
  const commit =
    squash !== null
      ? (await isAncestor(cwd, squash, headRef(target)))
        ? squash
        : null
      : await findAccepted(cwd, target, v.id, since ?? undefined);
  if (!commit) return null;
  const latest = log.at(-1) === rollback && v.status === rollback.status;
  // Invariant: completing must lose nothing: the landed tree holds all of the task branch.
  return { commit, target, current: latest && (await takesBranch(cwd, commit, v.id)), rollback };
}

/** Whether merging the task branch into `commit` changes nothing (a branch already gone has nothing left). */
async function takesBranch(cwd: string, commit: string, id: string): Promise<boolean> {
  const branch = branchRef(id);
  if ((await git(['rev-parse', '--verify', '--quiet', branch], { cwd, allowFail: true })).code !== 0) return true;
  const merged = await git(['merge-tree', '--write-tree', commit, branch], { cwd, allowFail: true });
  const tree = (await git(['rev-parse', `${commit}^{tree}`], { cwd, allowFail: true })).stdout.trim();
  return merged.code === 0 && merged.stdout.split('\n')[0] === tree;
}

/** Completes a task whose rolled-back accept landed, while the rollback is still its latest change. */
export async function completeLateAccept(
  deps: SweepDeps,
  v: TaskView,
  late: LateAccept,
): Promise<ReconcileAction | null> {
  const { commit, target, rollback } = late;
  return completeLanded(deps, v.id, {
    op: 'late-accept',
    what: `its accept landed on ${target} as ${commit.slice(0, 10)} after it was rolled back`,
    move: (d) => {
      const last = d.view.changelog.filter((c) => !c.set_aside).at(-1);
      if (!last || last.id !== rollback.id || d.status !== rollback.status) return false;
      d.transition('zombie', 'zombie', `the rolled-back accept landed on ${target} afterwards`, {}, 'system');
      d.transition(
        'complete',
        'merge_done',
        `merged into ${target} as ${commit.slice(0, 10)}`,
        { details: { target, commit, by: 'late accept' } },
        'system',
      );
      return true;
    },
  });
}

/** The tasks whose accept squash commits (by their trailer) a target's move brought in: `range` is `old..new`. */
export async function acceptedIn(cwd: string, range: string): Promise<string[]> {
  const r = await git(['log', range, '-F', '--grep=Lazy-Task: ', '--format=%B%x01', '-n', '200', '--end-of-options'], {
    cwd,
    allowFail: true,
  });
  const ids = new Set<string>();
  for (const body of r.stdout.split('\x01')) {
    if (!/^\s*Accept task /.test(body)) continue;
    const m = /^Lazy-Task: ([0-9a-z]{4,64})\s*$/m.exec(body);
    if (m) ids.add(m[1]!);
  }
  return [...ids];
}

/** Completes each task of `ids` whose rolled-back accept is among what the target's move brought in. */
export async function sweepLateAccepts(
  deps: SweepDeps,
  ids: Iterable<string>,
  actions: ReconcileAction[],
): Promise<void> {
  for (const id of ids) {
    try {
      const v = await deps.store.view(id);
      const late = await landedAfterRollback(deps.repo.cwd, v);
      if (!late?.current) continue;
      const r = await completeLateAccept(deps, v, late);
      if (r) actions.push(r);
    } catch (e) {
      if (!(e instanceof LazyError)) throw e;
      actions.push({ task: id, action: 'skipped', detail: `late-accept check: ${e.message}`, warn: true });
    }
  }
}
