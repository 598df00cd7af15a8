import { git } from '../core/git.js';

// The git facts of a review package: what the task branch holds against its base.

export interface BranchDiff { base_commit: string; head: string; commits: number; changed_files: string[]; diffstat: string }

export async function branchDiff(cwd: string, base: string, head: string): Promise<BranchDiff> {
  const mb = (await git(['merge-base', base, head], { cwd, allowFail: true })).stdout.trim() || base;
  const [files, stat, count] = await Promise.all([
    git(['diff', '--name-only', '-z', mb, head], { cwd }),
    git(['diff', '--stat', mb, head], { cwd }),
    git(['rev-list', '--count', `${mb}..${head}`], { cwd }),
  ]);
  return {
    base_commit: mb, head, commits: Number(count.stdout.trim()) || 0,
    changed_files: files.stdout.split('\0').filter(Boolean), diffstat: stat.stdout.trimEnd(),
  };
}

/** Files changed between two commits that match any protected glob (git's own pathspec matching). */
export async function protectedChanges(cwd: string, from: string, to: string, globs: string[]): Promise<{ file: string; commit: string }[]> {
  if (!globs.length || from === to) return [];
  const r = await git(['diff', '--name-only', '-z', from, to, '--', ...globs.map((g) => `:(glob)${g}`)], { cwd, allowFail: true });
  if (r.code !== 0) return [];
  const files = r.stdout.split('\0').filter(Boolean);
  const out: { file: string; commit: string }[] = [];
  for (const file of files) {
    const last = (await git(['log', '-1', '--format=%H', `${from}..${to}`, '--', file], { cwd, allowFail: true })).stdout.trim();
    out.push({ file, commit: last || to });
  }
  return out;
}
