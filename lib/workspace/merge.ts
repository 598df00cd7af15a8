import { git } from '../core/git.js';
import { dirtyFiles } from './worktree.js';
import { acceptStashMessage } from './stash.js';
import { headRef, STASH_REF, worktreeBranchLine } from '../core/names.js';

// Squash-merging a task branch into its target without disturbing anyone's checkout:
// the squash commit is computed in the object store (merge-tree + commit-tree), then
// the target moves by compare-and-swap, or by a fast-forward inside the worktree that
// has it checked out, with that worktree's uncommitted work stashed and restored.

export type SquashPlan =
  | { kind: 'ok'; commit: string; targetOld: string; tree: string }
  | { kind: 'empty'; targetOld: string }
  | { kind: 'conflict'; files: string[]; detail: string };

export async function planSquash(cwd: string, target: string, branch: string, message: string): Promise<SquashPlan> {
  const targetOld = (await git(['rev-parse', '--verify', `${headRef(target)}^{commit}`], { cwd })).stdout.trim();
  const r = await git(['merge-tree', '--write-tree', '--name-only', '--no-messages', targetOld, headRef(branch)], {
    cwd,
    allowFail: true,
  });
  const lines = r.stdout.split('\n').filter(Boolean);
  if (r.code !== 0)
    return {
      kind: 'conflict',
      files: lines.slice(1),
      detail: r.stderr.trim() || `${branch} does not merge cleanly into ${target}`,
    };
  const tree = lines[0]!;
  const targetTree = (await git(['rev-parse', `${targetOld}^{tree}`], { cwd })).stdout.trim();
  if (tree === targetTree) return { kind: 'empty', targetOld };
  const commit = (await git(['commit-tree', tree, '-p', targetOld, '-F', '-'], { cwd, input: message })).stdout.trim();
  return { kind: 'ok', commit, targetOld, tree };
}

/** The worktree that has a branch checked out, if any. */
export async function checkoutOf(cwd: string, branch: string): Promise<string | null> {
  const r = await git(['worktree', 'list', '--porcelain'], { cwd });
  let path: string | null = null;
  for (const line of r.stdout.split('\n')) {
    if (line.startsWith('worktree ')) path = line.slice('worktree '.length);
    else if (line === worktreeBranchLine(branch) && path) return path;
  }
  return null;
}

export interface Applied {
  moved: boolean;
  checkout: string | null;
  stash: { id: string; restored: boolean; detail?: string } | null;
}

/** Moves the target to the squash commit. Returns moved=false when the target moved meanwhile. */
export async function applySquash(
  cwd: string,
  target: string,
  plan: { commit: string; targetOld: string },
  onStash?: (id: string) => void,
  task = '',
): Promise<Applied> {
  const checkout = await checkoutOf(cwd, target);
  if (!checkout) {
    const r = await git(
      ['update-ref', '-m', `lazy: accept into ${target}`, headRef(target), plan.commit, plan.targetOld],
      { cwd, allowFail: true },
    );
    return { moved: r.code === 0, checkout: null, stash: null };
  }
  let stash: Applied['stash'] = null;
  if ((await dirtyFiles(checkout)).length) {
    await git(['stash', 'push', '--include-untracked', '-q', '-m', acceptStashMessage(task, checkout)], {
      cwd: checkout,
    });
    stash = { id: (await git(['rev-parse', STASH_REF], { cwd: checkout })).stdout.trim(), restored: false };
    onStash?.(stash.id); // so a crash before the restore can still say where the work went
  }
  const ff = await git(['merge', '--ff-only', '-q', plan.commit], { cwd: checkout, allowFail: true });
  if (stash) {
    const pop = await git(['stash', 'pop', '-q'], { cwd: checkout, allowFail: true });
    if (pop.code === 0) stash.restored = true;
    else {
      // Everything the user had is in the stash, which git keeps on a failed pop; put the
      // checkout back to the merged commit rather than leave conflict markers in it.
      await git(['reset', '-q', '--hard'], { cwd: checkout, allowFail: true });
      await git(['clean', '-fdq'], { cwd: checkout, allowFail: true });
      stash.detail = (pop.stderr || pop.stdout).trim().split('\n')[0] ?? 'the stash did not apply cleanly';
    }
  }
  return { moved: ff.code === 0, checkout, stash };
}

/** The accepted squash commit of a task on the target, found by its trailer; only after `since` when given. */
export async function findAccepted(cwd: string, target: string, id: string, since?: string): Promise<string | null> {
  const range = since && /^[0-9a-f]{40}$/.test(since) ? `${since}..${headRef(target)}` : headRef(target);
  const r = await git(
    ['log', range, '-F', `--grep=Lazy-Task: ${id}`, '--format=%H%x00%B%x01', '-n', '20', '--end-of-options'],
    { cwd, allowFail: true },
  );
  for (const rec of r.stdout.split('\x01')) {
    const [sha, body] = rec.trim().split('\0');
    if (sha && body && body.split('\n').some((l) => l.trim() === `Lazy-Task: ${id}`) && /^Accept task /m.test(body))
      return sha;
  }
  return null;
}

/** Commits only on `branch`, reachable from no other branch: what deleting it would lose. */
export async function unmergedCommits(cwd: string, branch: string): Promise<number> {
  const r = await git(['rev-list', '--count', headRef(branch), '--not', `--exclude=${branch}`, '--branches'], {
    cwd,
    allowFail: true,
  });
  return Number(r.stdout.trim()) || 0;
}

export async function deleteBranch(cwd: string, branch: string): Promise<boolean> {
  return (await git(['branch', '-D', '-q', branch], { cwd, allowFail: true })).code === 0;
}
