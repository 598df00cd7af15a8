import { git } from '../../core/git.js';
import { LazyError } from '../../core/errors.js';
import type { TaskView } from '../../model/fold.js';
import { refreshIndex } from '../../store/listing/index.js';
import { revParse } from '../../workspace/worktree.js';
import { isAncestor, mergeCommitOf } from '../../workspace/target-tips.js';
import { branchNews, submissionOf, type Submission } from '../../workspace/submission.js';
import type { ReconcileAction } from '../action.js';
import { completeLanded, type SweepDeps } from '../complete.js';
import { currentStamps, readStamp, writeStamp, type UpstreamStamp } from './due.js';
import { branchRef, remoteBranch, taskBranch } from '../../core/names.js';

// A submitted task's outcome on the forge, read from git alone (local refs only: whatever the
// last fetch brought), whichever forge merged it:
// - merged: the remote target contains the branch head (a merge commit or a fast-forward), or a
//   commit new on the target since the submission carries `Lazy-Task: <id>` (a rebase of
//   lazy's own commits), or has the patch-id of the branch's squashed diff (a forge's squash
//   with another message), or the branch's commits all have patch-id twins there (a rebase):
//   submitted → complete (merge_done), cleaned up as accept does;
// - closed: the remote branch is gone and it was not merged: submitted → blocked (pr_closed).
//   Invariant: only a clone that saw the remote branch for this submission (a settle here read
//   refs/remotes/<remote>/lazy/<id> after the submission) counts its absence: a clone that never
//   fetched it has no evidence, and the remote target must have been fetched too;
// - new commits someone else pushed to the remote branch: reported (pull fast-forwards them).

type How = 'contains' | 'trailer' | 'patch-id';
interface Merged {
  how: How;
  commit: string;
  head: string;
}

/**
 * `known`: every task's status as the caller knows it right now (a pull: the index it refreshed, and what its merge
 * moved), so the index is not refreshed a second time.
 */
export async function settleSubmitted(
  deps: SweepDeps,
  actions: ReconcileAction[],
  known?: { id: string; status: string }[],
): Promise<void> {
  const { repo } = deps;
  const stamps = currentStamps(repo);
  const old = readStamp(repo.lazyDir);
  const next: UpstreamStamp = { ...stamps, seen: {} };
  const rows = known ?? (await refreshIndex(repo.cwd, repo.lazyDir, deps.store.reader)).rows;
  // merging too: an aborted accept returns its task to submitted without a settle.
  next.watching = rows.filter((r) => r.status === 'submitted' || r.status === 'merging').length;
  for (const row of rows) {
    if (row.status !== 'submitted') continue;
    try {
      const v = await deps.store.view(row.id);
      const sub = v.status === 'submitted' ? submissionOf(v) : null;
      if (!sub) continue;
      const [tracking = null, remoteTarget = null, submitted = null] = await deps.store.reader.objects.resolveMany([
        sub.tracking,
        sub.target_ref,
        sub.head,
      ]);
      const seen = !!tracking || old?.seen[v.id] === sub.entry;
      const r = await settleOne(deps, v, sub, { tracking, remoteTarget, submitted }, seen);
      if (r) actions.push(r);
      if (seen && (!r || r.action === 'new-commits')) next.seen[v.id] = sub.entry;
    } catch (e) {
      if (!(e instanceof LazyError)) throw e;
      actions.push({ task: row.id, action: 'skipped', detail: `upstream check: ${e.message}`, warn: true });
      if (old?.seen[row.id]) next.seen[row.id] = old.seen[row.id]!;
    }
  }
  writeStamp(repo.lazyDir, next);
}

/** What a submission's names resolve to here (one round trip to the store's git for all three). */
interface Tips {
  /** The remote-tracking copy of the task branch. */
  tracking: string | null;
  remoteTarget: string | null;
  submitted: string | null;
}

async function settleOne(
  deps: SweepDeps,
  v: TaskView,
  sub: Submission,
  { tracking, remoteTarget, submitted }: Tips,
  seen: boolean,
): Promise<ReconcileAction | null> {
  const cwd = deps.repo.cwd;
  if (!remoteTarget) return null; // the remote's target was never fetched here: nothing to judge by
  // The latest head: the remote branch when it builds on the submitted head.
  const head = tracking && (!submitted || (await isAncestor(cwd, submitted, tracking))) ? tracking : submitted;
  const merged = head ? await mergedHow(cwd, v.id, sub, head, remoteTarget) : null;
  if (merged) return complete(deps, v, sub, merged);
  if (!tracking) return seen ? closed(deps, v, sub) : null;
  const news = await branchNews(cwd, v.id, sub);
  if (!news?.count) return null;
  return {
    task: v.id,
    action: 'new-commits',
    warn: true,
    detail: `${news.count} new commit(s) on ${news.ref}`,
  };
}

/** How the remote target took the branch, if it did (see the header). */
async function mergedHow(
  cwd: string,
  id: string,
  sub: Submission,
  head: string,
  remoteTarget: string,
): Promise<Merged | null> {
  const tip = (sub.target_tip && (await revParse(cwd, sub.target_tip))) || null;
  // Invariant: a head the target already held at submission has no work of its own to detect.
  if (tip && (await isAncestor(cwd, head, tip))) return null;
  if (await isAncestor(cwd, head, remoteTarget))
    return { how: 'contains', commit: await mergeCommitOf(cwd, head, sub.target_ref), head };
  const base = (await git(['merge-base', head, tip ?? remoteTarget], { cwd, allowFail: true })).stdout.trim();
  if (!base) return null;
  // New on the target since the submission, and not the branch's own commits.
  const range = [remoteTarget, `^${tip ?? base}`, `^${head}`];
  const trailer = await trailerCommit(cwd, id, range);
  if (trailer) return { how: 'trailer', commit: trailer, head };
  const twin = await patchTwin(cwd, base, head, range);
  return twin ? { how: 'patch-id', commit: twin, head } : null;
}

async function trailerCommit(cwd: string, id: string, range: string[]): Promise<string | null> {
  const r = await git(['log', '-F', `--grep=Lazy-Task: ${id}`, '--format=%H%x00%B%x01', ...range, '--'], {
    cwd,
    allowFail: true,
  });
  for (const rec of r.stdout.split('\x01')) {
    const [sha, body] = rec.replace(/^\n/, '').split('\0');
    if (sha && body?.split('\n').some((l) => l.trim() === `Lazy-Task: ${id}`)) return sha;
  }
  return null;
}

/** patch-id → commit for each non-merge commit of a `git log -p` (stable ids, as git patch-id --stable). */
async function patchIds(cwd: string, logArgs: string[]): Promise<Map<string, string>> {
  const patch = await git(['log', '-p', '--no-merges', '--format=commit %H', ...logArgs, '--'], { cwd });
  const ids = await git(['patch-id', '--stable'], { cwd, input: patch.stdout });
  const out = new Map<string, string>();
  for (const line of ids.stdout.split('\n')) {
    const [pid, sha] = line.split(' ');
    if (pid && sha && !out.has(pid)) out.set(pid, sha);
  }
  return out;
}

/**
 * The target's commit that holds the branch's work under another hash: one whose patch-id is the
 * squashed diff's (a squash merge), or, when every branch commit has a twin, the newest twin (a rebase).
 */
async function patchTwin(cwd: string, base: string, head: string, range: string[]): Promise<string | null> {
  const upstream = await patchIds(cwd, range);
  if (!upstream.size) return null;
  const diff = await git(['diff', '--no-color', base, head, '--'], { cwd });
  const squash = (await git(['patch-id', '--stable'], { cwd, input: diff.stdout })).stdout.split(' ')[0];
  if (squash && upstream.has(squash)) return upstream.get(squash)!;
  const own = await patchIds(cwd, [`${base}..${head}`]);
  if (!own.size || [...own.keys()].some((p) => !upstream.has(p))) return null;
  // Log order is newest first: the first of the branch's commits is the newest.
  return upstream.get([...own.keys()][0]!)!;
}

async function complete(deps: SweepDeps, v: TaskView, sub: Submission, m: Merged): Promise<ReconcileAction | null> {
  const cwd = deps.repo.cwd;
  const where = remoteBranch(sub.remote, sub.target);
  const details = { target: sub.target, commit: m.commit, head: m.head, how: m.how, remote: sub.remote };
  return completeLanded(deps, v.id, {
    op: 'upstream',
    what: `merged into ${where} as ${m.commit.slice(0, 10)} (${m.how})`,
    move: (d) => {
      if (d.status !== 'submitted') return false;
      d.transition(
        'complete',
        'merge_done',
        `merged into ${where} as ${m.commit.slice(0, 10)} (${m.how})`,
        { details },
        'system',
      );
      return true;
    },
    // Local commits the merged head lacks (work not pushed yet) keep the branch.
    keepBranch: async () => {
      const local = await revParse(cwd, branchRef(v.id));
      if (!local || (await isAncestor(cwd, local, m.head)) || (await isAncestor(cwd, local, sub.target_ref)))
        return null;
      return `branch ${taskBranch(v.id)} kept: it holds commits the merged head ${m.head.slice(0, 10)} does not`;
    },
  });
}

async function closed(deps: SweepDeps, v: TaskView, sub: Submission): Promise<ReconcileAction | null> {
  const reason = `closed without merge: ${sub.remote} deleted ${taskBranch(v.id)}`;
  let done = false;
  await deps.store.mutate(
    v.id,
    'upstream',
    (d) => {
      if (d.status !== 'submitted' || submissionOf(d.view)?.entry !== sub.entry) return;
      d.transition(
        'blocked',
        'pr_closed',
        reason,
        { details: { remote: sub.remote, branch: taskBranch(v.id) } },
        'system',
      );
      done = true;
    },
    { actor: 'system' },
  );
  return done ? { task: v.id, action: 'blocked', warn: true, detail: reason } : null;
}
