import type { Draft } from '../store/draft.js';
import { deleteBranch } from '../workspace/merge.js';
import { dirtyFiles, removeWorktree, worktreePath } from '../workspace/worktree.js';
import type { Repo } from '../core/repo.js';
import type { Store } from '../store/store.js';
import type { Config } from '../store/config/index.js';
import type { ReconcileAction } from './action.js';
import { taskBranch } from '../core/names.js';

// A task whose work landed outside an accept (merged by hand, or upstream on a forge) completes
// the way accept ends: the session ends accepted, then the worktree and the branch go, except
// that uncommitted work in the worktree is kept (and its branch with it).

/** What the sweeps (the merged-branch sweep, the upstream settle) work with. */
export interface SweepDeps {
  repo: Repo;
  store: Store;
  config: () => Promise<Config>;
}

export interface Landed {
  /** The change log operation the commit is recorded under. */
  op: string;
  /** Moves the task to complete; false when it must not (someone moved it meanwhile). */
  move(d: Draft): boolean;
  /** How it landed, for the report: "its branch was merged into main as 1a2b3c4d5e". */
  what: string;
  /** Whether the local branch holds work the landing did not take (then it is kept). */
  keepBranch?: () => Promise<string | null>;
}

export async function completeLanded(deps: SweepDeps, id: string, l: Landed): Promise<ReconcileAction | null> {
  let done = false;
  await deps.store.mutate(
    id,
    l.op,
    (d) => {
      if (!l.move(d)) return;
      const s = d.view.session;
      if (s) d.putSession({ ...s, ended_at: d.ctx.now, outcome: 'accepted' });
      done = true;
    },
    { actor: 'system' },
  );
  if (!done) return null;
  const wt = worktreePath(deps.repo, id, (await deps.config()).worktree_dir);
  const dirty = await dirtyFiles(wt).catch(() => []);
  if (dirty.length)
    return {
      task: id,
      action: 'completed',
      warn: true,
      detail: `${l.what} (worktree ${wt} kept: ${dirty.length} uncommitted file(s))`,
    };
  await removeWorktree(deps.repo, wt).catch(() => false);
  const kept = l.keepBranch ? await l.keepBranch() : null;
  if (kept) return { task: id, action: 'completed', warn: true, detail: `${l.what} (${kept})` };
  await deleteBranch(deps.repo.cwd, taskBranch(id));
  return { task: id, action: 'completed', detail: l.what };
}
