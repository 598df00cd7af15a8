import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Repo } from '../core/repo.js';
import { git } from '../core/git.js';
import { readStateFile, writeStateFile } from '../core/fsutil.js';
import { BRANCH_NS, branchOfRef, headRef } from '../core/names.js';

// The merged-branch sweep's trigger. Task branches merge into a few target branches
// (main, a parent's lazy/<id>); `.git/lazy/target-tips.json` remembers each target's tip
// as the last sweep saw it, and the packed-refs file's stamp. Every command compares them
// with the loose ref files (a read each), so only a moved target costs a sweep.

export interface TargetTips {
  targets: Record<string, string>;
  packed: string | null;
}

const FILE = 'target-tips.json';
const SHA = /^[0-9a-f]{40}$/;

export const readTips = (lazyDir: string): TargetTips | null =>
  readStateFile<TargetTips>(join(lazyDir, FILE), (o) => typeof o.targets === 'object' && !!o.targets);

/** A state that cannot be written only costs the next command another sweep. */
export const writeTips = (lazyDir: string, t: TargetTips): void => writeStateFile(join(lazyDir, FILE), t);

export function packedStamp(repo: Repo): string | null {
  try {
    const s = statSync(join(repo.commonDir, 'packed-refs'), { bigint: true });
    return `${s.mtimeNs}:${s.size}:${s.ino}`;
  } catch {
    return null;
  }
}

const looseTip = (repo: Repo, branch: string): string | null => {
  try {
    return readFileSync(join(repo.commonDir, headRef(branch)), 'utf8').trim();
  } catch {
    return null;
  }
};

/** Whether a target moved since the last sweep (or none ran yet): reads the state and one ref file per target. */
export function sweepDue(repo: Repo): boolean {
  const t = readTips(repo.lazyDir);
  if (!t) return true;
  for (const [branch, tip] of Object.entries(t.targets)) {
    const loose = looseTip(repo, branch);
    if (loose !== null ? loose !== tip : packedStamp(repo) !== t.packed) return true;
  }
  return false;
}

/** A turn launched on `target`: the sweep must watch it. A no-op until the first sweep wrote the state. */
export function watchTarget(repo: Repo, target: string, tip: string): void {
  const t = readTips(repo.lazyDir);
  if (!t || t.targets[target] || !SHA.test(tip)) return;
  t.targets[target] = tip;
  writeTips(repo.lazyDir, t);
}

/** Current tips of the named branches, from one git call (a missing branch is absent). */
export async function branchTips(cwd: string, branches: string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  if (!branches.length) return out;
  const r = await git(['for-each-ref', '--format=%(refname)%00%(objectname)', ...branches.map(headRef)], {
    cwd,
    allowFail: true,
  });
  const want = new Set(branches.map(headRef));
  for (const line of r.stdout.split('\n')) {
    const [ref, sha] = line.split('\0');
    if (ref && sha && want.has(ref)) out.set(branchOfRef(ref)!, sha);
  }
  return out;
}

/** Task branches (lazy/<id>) with their tips; with `merged`, only those whose tip `merged` contains. */
export async function taskBranchTips(cwd: string, merged?: string): Promise<Map<string, string>> {
  const r = await git(
    ['for-each-ref', '--format=%(refname)%00%(objectname)', ...(merged ? [`--merged=${merged}`] : []), BRANCH_NS],
    { cwd, allowFail: true },
  );
  const out = new Map<string, string>();
  for (const line of r.stdout.split('\n')) {
    const [ref, sha] = line.split('\0');
    const id = ref?.slice(BRANCH_NS.length);
    if (id && sha && /^[0-9a-z]{4,64}$/.test(id)) out.set(id, sha);
  }
  return out;
}

/**
 * The commit on `ref`'s first-parent line that brought `tip` in: the merge commit, or tip itself for a fast-forward.
 */
export async function mergeCommitOf(cwd: string, tip: string, ref: string): Promise<string> {
  const r = await git(
    ['rev-list', '--first-parent', '--ancestry-path', '--reverse', '--parents', `${tip}..${ref}`, '--'],
    { cwd, allowFail: true },
  );
  const [first, parent] = (r.stdout.split('\n')[0] ?? '').split(' ');
  return !first || parent === tip ? tip : first;
}

export async function isAncestor(cwd: string, a: string, b: string): Promise<boolean> {
  return (await git(['merge-base', '--is-ancestor', a, b], { cwd, allowFail: true })).code === 0;
}
