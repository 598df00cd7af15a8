// Every git ref, branch and refspec name lazy uses, built here and nowhere else (test/names.test.ts
// holds the rest of lib/ and bin/ to that): the task state under refs/lazy/, the task branches
// lazy/<id>, the remote-tracking copies plain git fetch keeps, and the refspecs init writes and
// sync pushes and fetches. A name is a string; reading or moving the ref is the caller's business.

/** Everything lazy stores as refs; lazy push sends this namespace as one pattern. */
export const LAZY_NS = 'refs/lazy/';
export const LAZY_GLOB = `${LAZY_NS}*`;
/** One ref per task: its history of documents. */
export const TASKS_NS = `${LAZY_NS}tasks/`;
export const taskRef = (id: string) => TASKS_NS + id;
/**
 * Finished tasks moved out of TASKS_NS (lazy archive): a few refs, one per shard of the id space (the id's first
 * character), whose commits keep every archived task's history reachable.
 */
export const ARCHIVE_NS = `${LAZY_NS}archive/`;
export const archiveRef = (shard: string) => ARCHIVE_NS + shard;
/** A shard's map of archived tasks, as `git cat-file` names the file in the ref's tree. */
export const archiveMapRev = (shard: string, file: string) => `${archiveRef(shard)}:${file}`;
/** The shared settings. */
export const CONFIG_REF = `${LAZY_NS}config`;
/** A claimed task's lease: on the remote only, never a local ref (lazy push's pattern would send it). */
export const LEASES_NS = `${LAZY_NS}leases/`;
export const leaseRef = (id: string) => LEASES_NS + id;

/** Local branches. */
export const HEADS_NS = 'refs/heads/';
export const headRef = (branch: string) => HEADS_NS + branch;
/** refs/heads/<branch> → the branch; anything else → null. */
export const branchOfRef = (ref: string): string | null =>
  ref.startsWith(HEADS_NS) ? ref.slice(HEADS_NS.length) : null;
/** A checkout's HEAD file (or `worktree list --porcelain`'s line) when a branch is checked out: `ref: refs/heads/<b>`. */
export const symbolicHead = (branch: string) => `ref: ${headRef(branch)}`;
export const worktreeBranchLine = (branch: string) => `branch ${headRef(branch)}`;

/** A task's work branch, and the folder all of them live in. */
const TASK_BRANCH_DIR = 'lazy/';
export const taskBranch = (id: string) => TASK_BRANCH_DIR + id;
export const BRANCH_NS = headRef(TASK_BRANCH_DIR);
export const BRANCH_GLOB = `${BRANCH_NS}*`;
export const branchRef = (id: string) => BRANCH_NS + id;

/** Remote-tracking refs: a branch as plain `git fetch` keeps the remote's copy of it. */
export const REMOTES_NS = 'refs/remotes/';
export const remoteTrackingRef = (remote: string, branch: string) => `${REMOTES_NS}${remote}/${branch}`;
/** The copies of task branches (and, after init --remote, of refs/lazy/*) under one remote. */
export const trackingPrefix = (remote: string) => remoteTrackingRef(remote, TASK_BRANCH_DIR);
export const trackingRef = (remote: string, id: string) => remoteTrackingRef(remote, taskBranch(id));
/** Every remote's copy of one task branch, as a for-each-ref pattern. */
export const anyTrackingRef = (id: string) => remoteTrackingRef('*', taskBranch(id));
/** refs/remotes/<remote>/lazy/<id> → <remote> (null for any other ref). */
export function trackingRemoteOf(ref: string, id: string): string | null {
  const tail = `/${taskBranch(id)}`;
  return ref.startsWith(REMOTES_NS) && ref.endsWith(tail) ? ref.slice(REMOTES_NS.length, -tail.length) : null;
}
/** How git and people name a remote's branch in a merge: remotes/<remote>/<branch>. */
export const shortTrackingName = (remote: string, id: string) => trackingRef(remote, id).slice('refs/'.length);
/** A remote's branch as `git log <remote>/<branch>` takes it. */
export const remoteBranch = (remote: string, branch: string) => `${remote}/${branch}`;
/** A ref on a remote, as lazy names it in messages and error details. */
export const remoteRefLabel = (remote: string, ref: string) => `${remote}:${ref}`;

/** The stash ref: an accept stashes a checkout's uncommitted work there. */
export const STASH_REF = 'refs/stash';

// Refspecs. No '+' on a push: the remote accepts fast-forwards only; nothing is ever force-pushed.
export const fetchSpec = (remote: string) => `+${LAZY_GLOB}:${trackingPrefix(remote)}*`;
export const PUSH_SPEC = `${LAZY_GLOB}:${LAZY_GLOB}`;
/** Task work branches travel under the same name, so forges can open pull requests from them. */
export const BRANCH_PUSH_SPEC = `${BRANCH_GLOB}:${BRANCH_GLOB}`;
/** git's default fetch refspec: it already keeps refs/remotes/<remote>/lazy/<id> for the branches. */
export const headsFetchSpec = (remote: string) => `+${HEADS_NS}*:${remoteTrackingRef(remote, '*')}`;
/** The fetch refspec that keeps branch tracking refs when the remote's fetch refspecs do not already (a narrow clone). */
export const branchFetchSpec = (remote: string) => `+${BRANCH_GLOB}:${trackingPrefix(remote)}*`;
/** A ref pushed to the same name on the remote. */
export const sameNameSpec = (ref: string) => `${ref}:${ref}`;
/** A push that sets the remote's `ref` to `oid` (empty: deletes it). */
export const pushOidSpec = (oid: string, ref: string) => `${oid}:${ref}`;
/** A negative refspec: `ref` is left out of a pattern push. */
export const exceptSpec = (ref: string) => `^${ref}`;
/** push's compare-and-swap: the remote's `ref` must be at `oid` (empty: must not exist). */
export const leaseOption = (ref: string, oid: string) => `--force-with-lease=${ref}:${oid}`;
