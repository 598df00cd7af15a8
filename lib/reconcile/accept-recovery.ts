import type { Store } from '../store/store.js';
import type { Repo } from '../core/repo.js';
import type { Config } from '../store/config/index.js';
import { lastChange } from '../model/fold.js';
import { removeWorktree, worktreePath } from '../workspace/worktree.js';
import { deleteBranch, findAccepted } from '../workspace/merge.js';
import { readActive, type ActiveMarker } from '../store/markers.js';
import { taskBranch } from '../core/names.js';
import { mergingOf } from '../model/details.js';

// Finishing or rolling back an accept that stopped midway (its process died, or a git
// step failed under it). The merging entry records the target and the target's tip when
// the merge began, so only a squash commit made by this accept counts as landed, never
// one from an earlier accept of the same task.

/**
 * What is done with an accept that died (or failed) inside a step. Each step of ACCEPT_STEPS
 * (lib/ops/accept/index.ts) names its rule, and the accept's active marker carries the rule of the
 * step it is in, for whoever finds it dead: reconcile, or the next accept of the task.
 * - restore: nothing has moved the target yet; the task goes back to the status it had.
 * - settle: the target decides. Holding this accept's squash commit, the task completes
 *   (zombie → complete, system actor) and its worktree and branch go; else it is restored.
 */
export type AfterKill = NonNullable<ActiveMarker['if_killed']>;
/** The resting statuses an accept starts from, and so the ones an abort restores. */
export type Restore = 'blocked' | 'conflict' | 'submitted';

/** The rule an accept's marker carries; settle, which is always safe, when it names none. */
export const afterKill = (m: ActiveMarker | undefined): AfterKill => (m?.kind === 'accept' && m.if_killed) || 'settle';

export type Recovery =
  { outcome: 'completed'; commit: string } | { outcome: 'restored'; status: Restore } | { outcome: 'not-merging' };

export async function recoverAccept(
  repo: Repo,
  store: Store,
  config: () => Promise<Config>,
  id: string,
  o: { locked: boolean; rule: AfterKill },
): Promise<Recovery> {
  const v = await store.view(id);
  if (v.status !== 'merging') return { outcome: 'not-merging' };
  const entry = lastChange(v, 'merging');
  const merging = mergingOf(entry);
  const target = merging.target ?? '';
  const since = merging.target_old ?? undefined;
  const r = merging.restore;
  const restore: Restore = r === 'conflict' || r === 'submitted' ? r : 'blocked';
  const commit = o.rule === 'settle' && target ? await findAccepted(repo.cwd, target, id, since) : null;
  // The commit a killed move was landing: recorded on the rollback, as a late landing's evidence (late-accept.ts).
  const m = readActive(repo.lazyDir, id);
  const squash: Record<string, string> =
    m?.kind === 'accept' && typeof m.squash === 'string' ? { squash: m.squash } : {};
  const mutate = o.locked ? store.mutateUnlocked.bind(store) : store.mutate.bind(store);
  await mutate(
    id,
    'recover-accept',
    (d) => {
      if (d.status !== 'merging') return;
      if (commit) {
        d.transition(
          'zombie',
          'zombie',
          `the accept stopped after ${target} received ${commit.slice(0, 10)}`,
          {},
          'system',
        );
        const s = d.view.session;
        if (s) d.putSession({ ...s, ended_at: d.ctx.now, outcome: 'accepted' });
        d.transition(
          'complete',
          'merge_done',
          `merged into ${target} as ${commit.slice(0, 10)}`,
          { details: { target, commit } },
          'system',
        );
      } else {
        const details = { target, ...(since ? { target_old: since } : {}), if_killed: o.rule, ...squash };
        d.transition(
          restore,
          'merge_abort',
          'the accept stopped before the merge landed; restored',
          { details },
          'system',
        );
      }
    },
    { actor: 'system' },
  );
  if (!commit) return { outcome: 'restored', status: restore };
  const c = await config();
  await removeWorktree(repo, worktreePath(repo, id, c.worktree_dir)).catch(() => false);
  await deleteBranch(repo.cwd, taskBranch(id));
  return { outcome: 'completed', commit };
}
