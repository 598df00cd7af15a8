import { git } from '../core/git.js';
import type { Repo } from '../core/repo.js';
import { placeOf } from '../core/place.js';
import type { TaskView } from '../model/fold.js';
import { isActive, isTerminal } from '../model/status.js';
import type { TaskReader } from '../store/read.js';
import { lastReviewHead, sessionRanHere } from '../workspace/branch/index.js';
import { dirtyFiles, removeWorktree } from '../workspace/worktree.js';
import { deleteBranch } from '../workspace/merge.js';
import { moveRefs, type RefMove } from './apply.js';
import { isAncestor } from '../workspace/target-tips.js';
import { branchIdOf, branchState, viewsOf } from './branches.js';
import type { Rejected } from './check.js';
import {
  BRANCH_NS,
  branchRef,
  headRef,
  remoteTrackingRef,
  shortTrackingName,
  taskBranch,
  trackingRef,
} from '../core/names.js';
import { landedOf, lastAccept } from '../model/details.js';

// The pull side of travelling branches, run after the task merge: the remote branches of
// known tasks become tracking refs (pruned when the remote branch is gone), then the local
// lazy/<id> is created or fast-forwarded where nobody is working on it, and a branch a
// teammate's accept made redundant is removed with its worktree when nothing would be lost.

export interface BranchPull {
  created: string[];
  updated: string[];
  diverged: Rejected[];
  pruned: string[];
  /** Tasks a teammate accepted: their local branch and worktree held nothing more, and were removed. */
  cleaned: string[];
  kept: { id: string; reason: string }[];
  /** Submitted tasks' targets whose tracking refs moved. */
  targets: string[];
}

export const emptyBranchPull = (): BranchPull => ({
  created: [],
  updated: [],
  diverged: [],
  pruned: [],
  cleaned: [],
  kept: [],
  targets: [],
});

/** The branch and target refs a pull wants objects for: branches of tasks known on either side, never others. */
export function wantedRefs(tips: Map<string, string>, known: Set<string>, targets: string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const [ref, oid] of tips) {
    const id = branchIdOf(ref);
    if (id && known.has(id)) out.set(ref, oid);
  }
  for (const t of targets) {
    const oid = tips.get(headRef(t));
    if (oid) out.set(headRef(t), oid);
  }
  return out;
}

export interface Settle {
  repo: Repo;
  reader: TaskReader;
  remote: string;
  tips: Map<string, string>;
  targets: string[];
  /** Tasks the merge moved, freshly folded. */
  moved: Map<string, TaskView>;
  /** Every task this clone has after the merge (a pull never removes one). */
  known: Set<string>;
}

export async function settleBranches(s: Settle): Promise<BranchPull> {
  const out = emptyBranchPull();
  const cwd = s.repo.cwd;
  const known = s.known;
  const theirs = new Map<string, string>();
  for (const [ref, oid] of wantedRefs(s.tips, known, [])) theirs.set(ref.slice(BRANCH_NS.length), oid);
  // Tracking refs to look at: the remote's branches, every local branch, and tasks this pull moved (a branch
  // deleted with its task's end); another known task's stale tracking ref is pruned once it is among those.
  const state = await branchState(cwd, s.remote, [...theirs.keys(), ...s.moved.keys()]);
  await moveTracking(s, known, state.tracking, theirs, out);
  const candidates = [...known].filter((id) => {
    const mine = state.local.get(id);
    const tip = theirs.get(id);
    return (tip && mine !== tip) || (mine && s.moved.get(id)?.status === 'complete');
  });
  const views = await viewsOf(s.reader, candidates, s.moved);
  const checkouts = candidates.length ? await checkoutsOf(cwd) : new Map<string, string>();
  const creates: RefMove[] = [];
  for (const id of candidates) {
    const v = views.get(id);
    const mine = state.local.get(id);
    const tip = theirs.get(id);
    if (!v) continue;
    if (mine && v.status === 'complete' && s.moved.has(id)) {
      await cleanUp(s, v, mine, checkouts.get(id), out);
      continue;
    }
    if (!tip) continue;
    const here = isActive(v.status) && sessionRanHere(v, placeOf(s.repo));
    if (!mine) {
      if (isTerminal(v.status)) continue;
      if (here) out.kept.push({ id, reason: 'the task is working on this host; its branch is not created' });
      else creates.push({ ref: branchRef(id), next: tip, old: null });
    } else if (await isAncestor(cwd, mine, tip)) {
      if (here) out.kept.push({ id, reason: 'the task is working on this host; its branch was not fast-forwarded' });
      else await fastForward(s, id, mine, tip, checkouts.get(id), out, creates);
    } else if (!(await isAncestor(cwd, tip, mine)))
      out.diverged.push({
        id,
        reason:
          `${taskBranch(id)} and ${s.remote}'s have diverged; neither was moved: ` +
          `merge ${shortTrackingName(s.remote, id)} into it by hand, then lazy push`,
        details: { branch: taskBranch(id), local_tip: mine, remote_tip: tip },
      });
  }
  const { moved } = await moveRefs(cwd, creates, `lazy: pull from ${s.remote}`);
  for (const m of moved) (m.old ? out.updated : out.created).push(m.ref.slice(BRANCH_NS.length));
  return out;
}

/** Tracking refs follow the remote's branches of known tasks (never others), and submitted tasks' targets. */
async function moveTracking(
  s: Settle,
  known: Set<string>,
  tracking: Map<string, string>,
  theirs: Map<string, string>,
  out: BranchPull,
): Promise<void> {
  const lines: string[] = [];
  const want: [string, string][] = [];
  for (const [id, oid] of theirs) if (tracking.get(id) !== oid) want.push([trackingRef(s.remote, id), oid]);
  for (const [id] of tracking)
    if (known.has(id) && !theirs.has(id)) {
      lines.push(`delete ${trackingRef(s.remote, id)}`);
      out.pruned.push(id);
    }
  const targets = await targetTracking(s);
  for (const [t, oid] of targets) want.push([remoteTrackingRef(s.remote, t), oid]);
  // Only tips whose objects arrived: a ref never points at a commit this clone lacks.
  const have = await s.reader.objects.readMany(want.map(([, oid]) => oid));
  want.forEach(([ref, oid], i) => {
    if (have[i]?.type !== 'commit') return;
    lines.push(`update ${ref} ${oid}`);
    const t = [...targets].find(([name]) => ref === remoteTrackingRef(s.remote, name));
    if (t) out.targets.push(t[0]);
  });
  if (lines.length)
    await git(['update-ref', '-m', `lazy: pull from ${s.remote}`, '--stdin'], {
      cwd: s.repo.cwd,
      input: lines.join('\n') + '\n',
    });
}

/** Submitted targets whose tracking ref differs from the remote's tip. */
async function targetTracking(s: Settle): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  if (s.targets.length === 0) return out;
  const refs = s.targets.map((t) => remoteTrackingRef(s.remote, t));
  const r = await git(['for-each-ref', '--format=%(objectname) %(refname)', ...refs], { cwd: s.repo.cwd });
  const now = new Map(r.stdout.split('\n').map((l) => [l.slice(41), l.slice(0, 40)]));
  for (const t of s.targets) {
    const oid = s.tips.get(headRef(t));
    if (oid && now.get(remoteTrackingRef(s.remote, t)) !== oid) out.set(t, oid);
  }
  return out;
}

/** A clean worktree is fast-forwarded in place; a dirty one is left alone; a branch checked out nowhere moves by CAS. */
async function fastForward(
  s: Settle,
  id: string,
  mine: string,
  tip: string,
  wt: string | undefined,
  out: BranchPull,
  moves: RefMove[],
): Promise<void> {
  if (!wt) return void moves.push({ ref: branchRef(id), next: tip, old: mine });
  if ((await dirtyFiles(wt)).length)
    return void out.kept.push({ id, reason: `uncommitted changes in ${wt}; not fast-forwarded` });
  const r = await git(['merge', '--ff-only', '-q', tip], { cwd: wt, allowFail: true });
  if (r.code === 0) out.updated.push(id);
  else out.kept.push({ id, reason: `git merge --ff-only in ${wt} failed: ${r.stderr.trim()}` });
}

/**
 * After a teammate's accept: the local branch goes (with its clean worktree) only when it holds nothing the accept did
 * not land: its tip is the accepted (last reviewed) head, or inside the recorded commit. The remote's last tip is no
 * proof: this clone's own push sets it, and a push the lease turned away leaves commits nobody landed.
 */
async function cleanUp(s: Settle, v: TaskView, mine: string, wt: string | undefined, out: BranchPull): Promise<void> {
  const { commit, head } = landedOf(lastAccept(v)?.entry);
  const landed =
    lastReviewHead(v) === mine ||
    head === mine ||
    (commit !== null && /^[0-9a-f]{40}$/.test(commit) && (await isAncestor(s.repo.cwd, mine, commit)));
  const keep = (reason: string) => void out.kept.push({ id: v.id, reason });
  if (!landed) return keep(`${taskBranch(v.id)} holds commits the accept did not land; kept`);
  if (wt && wt === s.repo.top) return keep(`${taskBranch(v.id)} is checked out in ${wt}; kept`);
  if (wt && (await dirtyFiles(wt)).length) return keep(`uncommitted changes in ${wt}; branch and worktree kept`);
  if (wt) await removeWorktree(s.repo, wt);
  if (await deleteBranch(s.repo.cwd, taskBranch(v.id))) out.cleaned.push(v.id);
  else keep(`${taskBranch(v.id)} could not be deleted`);
}

/** Task id → the worktree that has its branch checked out, from one `git worktree list`. */
async function checkoutsOf(cwd: string): Promise<Map<string, string>> {
  const r = await git(['worktree', 'list', '--porcelain'], { cwd });
  const out = new Map<string, string>();
  let path: string | null = null;
  for (const line of r.stdout.split('\n')) {
    if (line.startsWith('worktree ')) path = line.slice('worktree '.length);
    const id = line.startsWith('branch ') ? branchIdOf(line.slice('branch '.length)) : null;
    if (id && path) out.set(id, path);
  }
  return out;
}
