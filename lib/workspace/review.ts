import { git } from '../core/git.js';
import type { ProtectedPoint } from '../model/fold.js';

// The git facts of a review package: what the task branch holds against its base.

export interface BranchDiff {
  base_commit: string;
  head: string;
  commits: number;
  changed_files: string[];
  diffstat: string;
}

export async function branchDiff(cwd: string, base: string, head: string): Promise<BranchDiff> {
  const mb = (await mergeBase(cwd, base, head)) ?? base;
  const [files, stat, count] = await Promise.all([
    git(['diff', '--name-only', '-z', mb, head], { cwd }),
    git(['diff', '--stat', mb, head], { cwd }),
    git(['rev-list', '--count', `${mb}..${head}`], { cwd }),
  ]);
  return {
    base_commit: mb,
    head,
    commits: Number(count.stdout.trim()) || 0,
    changed_files: files.stdout.split('\0').filter(Boolean),
    diffstat: stat.stdout.trimEnd(),
  };
}

/** The commit a branch forked from its target at (null when they share no history or a name is missing). */
export async function mergeBase(cwd: string, target: string, head: string): Promise<string | null> {
  return (await git(['merge-base', target, head], { cwd, allowFail: true })).stdout.trim() || null;
}

export interface ProtectedChange {
  file: string;
  commit: string;
  base: string;
}

export interface ProtectedRange {
  /** Candidates are the protected files that differ between from and to (git's own glob matching). */
  from: string;
  to: string;
  /** The branch head whose content is judged and recorded. */
  head: string;
  /** What a revert of a never-flagged file restores: the branch's fork point. */
  base: string;
}

/**
 * Protected files the range lands that no violation or decision covers yet: never
 * flagged, or changed since the content that was flagged or decided. Stored names reach
 * git only as literal pathspecs.
 */
export async function undecidedChanges(
  cwd: string,
  r: ProtectedRange,
  globs: string[],
  points: Map<string, ProtectedPoint>,
): Promise<ProtectedChange[]> {
  if (!globs.length || r.from === r.to) return [];
  const diff = await git(
    ['diff', '--no-renames', '--name-only', '-z', r.from, r.to, '--', ...globs.map((g) => `:(glob)${g}`)],
    { cwd },
  );
  const out: ProtectedChange[] = [];
  const byCovered = new Map<string, string[]>();
  for (const file of diff.stdout.split('\0').filter(Boolean)) {
    const p = points.get(file);
    if (!p) out.push({ file, commit: r.head, base: r.base });
    else byCovered.set(p.covered, [...(byCovered.get(p.covered) ?? []), file]);
  }
  for (const [covered, files] of byCovered) {
    const moved = await git(
      ['--literal-pathspecs', 'diff', '--no-renames', '--name-only', '-z', covered, r.head, '--', ...files],
      { cwd, allowFail: true },
    );
    // A covered commit this clone does not have (pulled from elsewhere) covers nothing.
    const changed = moved.code === 0 ? new Set(moved.stdout.split('\0')) : new Set(files);
    for (const file of files)
      if (changed.has(file)) out.push({ file, commit: r.head, base: points.get(file)!.restore });
  }
  return out.sort((a, b) => (a.file < b.file ? -1 : 1));
}

/** What the branch holds against its fork point from the target that no decision covers. */
export async function branchViolations(
  cwd: string,
  target: string,
  head: string,
  globs: string[],
  points: Map<string, ProtectedPoint>,
): Promise<ProtectedChange[]> {
  if (!globs.length) return [];
  const base = (await mergeBase(cwd, target, head)) ?? head;
  return undecidedChanges(cwd, { from: base, to: head, head, base }, globs, points);
}
