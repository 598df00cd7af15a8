import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, resolve, isAbsolute } from 'node:path';
import { git, gitError } from '../core/git.js';
import { withLock } from '../core/lock.js';
import { indexLocked, worktreeMismatch } from '../core/errors.js';
import type { Repo } from '../core/repo.js';
import { headRef } from '../core/names.js';

// Each task works in a git worktree of its own on branch lazy/<id>. Worktrees live under
// <main checkout>/.lazy/worktrees where editors and agent tools see them; /.lazy/ is in
// .git/info/exclude so they stay out of the main checkout's git status.

export const WORKTREES_DIR = '.lazy';

/** The main checkout's top, even when lazy runs inside a linked worktree. */
export function mainTop(repo: Repo): string {
  return basename(repo.commonDir) === '.git' ? dirname(repo.commonDir) : repo.top;
}

export function worktreePath(repo: Repo, id: string, configured?: string): string {
  const root = configured
    ? isAbsolute(configured)
      ? configured
      : resolve(mainTop(repo), configured)
    : join(mainTop(repo), WORKTREES_DIR, 'worktrees');
  return join(root, id);
}

export async function branchExists(repo: Repo, branch: string): Promise<boolean> {
  const r = await git(['show-ref', '--verify', '--quiet', headRef(branch)], { cwd: repo.cwd, allowFail: true });
  return r.code === 0;
}

export async function revParse(cwd: string, rev: string): Promise<string | null> {
  const r = await git(['rev-parse', '--verify', '--quiet', `${rev}^{commit}`], { cwd, allowFail: true });
  return r.code === 0 ? r.stdout.trim() : null;
}

/** Adds /.lazy/ to .git/info/exclude (shared by every worktree); true when it had to. */
export function ensureExcluded(repo: Repo): boolean {
  const exclude = join(repo.commonDir, 'info', 'exclude');
  let text = '';
  try {
    text = readFileSync(exclude, 'utf8');
  } catch {
    mkdirSync(dirname(exclude), { recursive: true });
  }
  const line = `/${WORKTREES_DIR}/`;
  if (text.split('\n').includes(line)) return false;
  appendFileSync(
    exclude,
    `${text && !text.endsWith('\n') ? '\n' : ''}# lazy: task worktrees and agent result files\n${line}\n`,
  );
  return true;
}

/** Creates the worktree on first use and reuses it after; returns where it is. */
export async function ensureWorktree(
  repo: Repo,
  o: { path: string; branch: string; base: string },
): Promise<{ path: string; created: boolean }> {
  ensureExcluded(repo);
  if (existsSync(join(o.path, '.git'))) {
    const r = await git(['rev-parse', '--abbrev-ref', 'HEAD'], { cwd: o.path, allowFail: true });
    if (r.code === 0 && r.stdout.trim() === o.branch) return { path: o.path, created: false };
    throw worktreeMismatch(
      `${o.path} exists but is not on ${o.branch}; move it aside or remove it with git worktree remove`,
      { path: o.path },
    );
  }
  // Invariant: one worktree add (or prune) at a time per repository. git's add reads every other
  // worktree's entry, and a prune deletes an entry still being created: side by side, they fail.
  await withLock(repo.lazyDir, 'worktrees', async () => {
    const args = (await branchExists(repo, o.branch))
      ? ['worktree', 'add', '--quiet', o.path, o.branch]
      : ['worktree', 'add', '--quiet', '-b', o.branch, o.path, o.base];
    const r = await git(args, { cwd: repo.cwd, allowFail: true });
    if (r.code === 0) return;
    // A registration left by a worktree folder deleted by hand: pruned, then the add again.
    if (!STALE_REGISTRATION.test(r.stderr)) throw gitError(args, r);
    await git(['worktree', 'prune'], { cwd: repo.cwd, allowFail: true });
    await git(args, { cwd: repo.cwd });
  });
  return { path: o.path, created: true };
}

const STALE_REGISTRATION = /missing but (already registered|locked)|already checked out|already used by worktree/;

export async function removeWorktree(repo: Repo, path: string): Promise<boolean> {
  if (!existsSync(path)) {
    await withLock(repo.lazyDir, 'worktrees', () => git(['worktree', 'prune'], { cwd: repo.cwd, allowFail: true }));
    return false;
  }
  await git(['worktree', 'remove', '--force', path], { cwd: repo.cwd });
  return true;
}

/** Uncommitted changes, tracked or not (ignored files do not count). */
export async function dirtyFiles(cwd: string): Promise<string[]> {
  const r = await git(['status', '--porcelain', '-z', '--untracked-files=all'], { cwd });
  return r.stdout
    .split('\0')
    .filter(Boolean)
    .map((l) => l.slice(3));
}

export async function headOf(cwd: string): Promise<string> {
  return (await git(['rev-parse', 'HEAD'], { cwd })).stdout.trim();
}

/** Commits everything in the worktree; returns the new commit, or null when clean. */
export async function commitAll(cwd: string, message: string): Promise<string | null> {
  if ((await dirtyFiles(cwd)).length === 0) return null;
  try {
    await git(['add', '-A'], { cwd });
    await git(['commit', '-q', '--no-verify', '-m', message], { cwd });
  } catch (e) {
    throw (await staleIndexLock(cwd, e)) ?? e;
  }
  return headOf(cwd);
}

/** git's message for a leftover index.lock does not say what to do: name the file. */
async function staleIndexLock(cwd: string, cause: unknown): Promise<Error | null> {
  const gitDir = (await git(['rev-parse', '--absolute-git-dir'], { cwd, allowFail: true })).stdout.trim();
  const lock = gitDir && join(gitDir, 'index.lock');
  if (!lock || !existsSync(lock)) return null;
  return indexLocked(
    `could not commit in ${cwd}: ${lock} exists (left by a git process that died?); ` +
      `remove it if no git command is running there`,
    { worktree: cwd, lock, cause: (cause as Error).message },
  );
}

export type MergeResult = { status: 'up-to-date' | 'merged' | 'conflict' | 'skipped'; detail: string; files: string[] };

/** Merges the upstream branch into the worktree's branch; leaves conflicts for the agent. */
export async function mergeUpstream(cwd: string, upstream: string): Promise<MergeResult> {
  if ((await dirtyFiles(cwd)).length)
    return { status: 'skipped', detail: 'uncommitted changes in the worktree', files: [] };
  const before = await headOf(cwd);
  const r = await git(['merge', '--no-edit', '--no-ff', '-m', `Merge ${upstream} into task branch`, upstream], {
    cwd,
    allowFail: true,
  });
  if (r.code === 0) {
    const after = await headOf(cwd);
    return after === before
      ? { status: 'up-to-date', detail: `${upstream} already merged`, files: [] }
      : { status: 'merged', detail: `merged ${upstream}`, files: [] };
  }
  const files = await unmergedFiles(cwd);
  if (files.length === 0) {
    await git(['merge', '--abort'], { cwd, allowFail: true });
    return { status: 'skipped', detail: `merge of ${upstream} failed: ${r.stderr.trim() || r.stdout.trim()}`, files };
  }
  return { status: 'conflict', detail: `merging ${upstream} conflicted`, files };
}

const unmergedFiles = async (cwd: string) =>
  (await git(['diff', '--name-only', '--diff-filter=U'], { cwd, allowFail: true })).stdout.split('\n').filter(Boolean);

/** A merge-and-fix the agent had not finished (a merge is still in progress in the worktree), or null. */
export async function mergeInProgress(cwd: string, upstream: string): Promise<MergeResult | null> {
  const r = await git(['rev-parse', '-q', '--verify', 'MERGE_HEAD'], { cwd, allowFail: true });
  return r.code === 0
    ? { status: 'conflict', detail: `merging ${upstream} was still in progress`, files: await unmergedFiles(cwd) }
    : null;
}
