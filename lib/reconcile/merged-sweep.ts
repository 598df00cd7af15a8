import { LazyError } from '../core/errors.js';
import type { Store } from '../store/store.js';
import type { TaskView } from '../model/fold.js';
import { TERMINAL } from '../model/status.js';
import {
  branchTips,
  isAncestor,
  mergeCommitOf,
  packedStamp,
  readTips,
  taskBranchTips,
  writeTips,
  type TargetTips,
} from '../workspace/target-tips.js';
import { safeRefName } from '../workspace/branch/index.js';
import type { ReconcileAction } from './action.js';
import { completeLanded, type SweepDeps } from './complete.js';
import { acceptedIn, sweepLateAccepts } from './late-accept.js';
import { landingBranch } from '../model/landing.js';
import { headRef, taskBranch } from '../core/names.js';

// The merged-branch sweep: a task branch merged into its target by other means (a
// `git merge` by hand, a merge pulled from the remote) completes the task, recording the
// commit that brought it in, through zombie → complete (merge_done) as a dead accept does.
// It runs only when a target's tip moved (target-tips.ts). Cost: one for-each-ref of the
// task branches, two `for-each-ref --merged` per watched target, then a view read and a
// merge-base per newly merged branch; the first sweep reads every task that has a branch.
// Invariant: only a branch that became merged by the target's move counts: a branch the
// previous tip already contained (no work of its own, or nothing since its base) never does.

export type { SweepDeps } from './complete.js';

/** Active statuses are left alone: a running turn, a pairing or an accept owns the branch. */
const BUSY = new Set(['working', 'pairing', 'merging']);

export async function sweepMerged(deps: SweepDeps, actions: ReconcileAction[]): Promise<void> {
  const { repo } = deps;
  const old = readTips(repo.lazyDir);
  const packed = packedStamp(repo);
  const branches = await taskBranchTips(repo.cwd);
  // The first sweep learns every target from the tasks that have a branch; later ones
  // watch the targets they learned plus those launches registered (watchTarget).
  const views = new Map<string, TaskView>();
  const targets = new Set(Object.keys(old?.targets ?? {}));
  if (!old) {
    for (const id of branches.keys()) {
      const v = await readView(deps.store, id);
      if (v && !TERMINAL.includes(v.status)) {
        views.set(id, v);
        targets.add(landingBranch(v));
      }
    }
  }
  const tips = await branchTips(repo.cwd, [...targets].filter(safeRefName));
  const next: TargetTips = { targets: {}, packed };
  // Accepts that landed after their rollback (late-accept.ts): the first sweep looks at every open task.
  const late = new Set(views.keys());
  for (const [target, tip] of tips) {
    const before = old?.targets[target];
    next.targets[target] = tip;
    if (before === tip) continue;
    const merged = await taskBranchTips(repo.cwd, headRef(target));
    const already = before ? await taskBranchTips(repo.cwd, before) : new Map<string, string>();
    if (before) for (const id of await acceptedIn(repo.cwd, `${before}..${tip}`)) late.add(id);
    for (const [id, head] of merged) {
      if (already.get(id) === head || taskBranch(id) === target) continue;
      const v = views.get(id) ?? (await readView(deps.store, id));
      if (!v || TERMINAL.includes(v.status) || landingBranch(v) !== target) continue;
      const base = v.session?.base_commit;
      // No work of its own.
      if (!base || !v.session || head === base || (await isAncestor(repo.cwd, head, base))) continue;
      // A busy task keeps the old tip recorded, so the next command looks again.
      if (BUSY.has(v.status)) {
        if (before) next.targets[target] = before;
        else delete next.targets[target];
        continue;
      }
      const r = await complete(deps, v, target, head).catch((e: unknown) => {
        if (e instanceof LazyError) {
          actions.push({ task: id, action: 'skipped', detail: `merged-branch sweep: ${e.message}`, warn: true });
          return null;
        }
        throw e;
      });
      if (r) actions.push(r);
    }
  }
  await sweepLateAccepts(deps, late, actions);
  // A launch may have registered a target meanwhile (watchTarget): keep it.
  for (const [target, tip] of Object.entries(readTips(repo.lazyDir)?.targets ?? {}))
    if (!targets.has(target)) next.targets[target] = tip;
  writeTips(repo.lazyDir, next);
}

async function readView(store: Store, id: string): Promise<TaskView | null> {
  try {
    return await store.view(id);
  } catch (e) {
    if (e instanceof LazyError) return null;
    throw e;
  }
}

async function complete(deps: SweepDeps, v: TaskView, target: string, head: string): Promise<ReconcileAction | null> {
  const commit = await mergeCommitOf(deps.repo.cwd, head, headRef(target));
  return completeLanded(deps, v.id, {
    op: 'merged-branch',
    what: `its branch was merged into ${target} as ${commit.slice(0, 10)}`,
    move: (d) => {
      if (TERMINAL.includes(d.status) || BUSY.has(d.status)) return false;
      d.transition('zombie', 'zombie', `${taskBranch(v.id)} was merged into ${target} outside lazy`, {}, 'system');
      d.transition(
        'complete',
        'merge_done',
        `merged into ${target} as ${commit.slice(0, 10)} (outside lazy)`,
        { details: { target, commit, head, by: 'merged-branch sweep' } },
        'system',
      );
      return true;
    },
  });
}
