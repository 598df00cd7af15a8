import { git } from '../core/git.js';
import { isTaskId } from '../core/ids.js';
import type { Place } from '../core/place.js';
import { LazyError } from '../core/errors.js';
import { foldTask, type TaskView } from '../model/fold.js';
import { isTerminal } from '../model/status.js';
import type { TaskRead, TaskReader } from '../store/read.js';
import { lastReviewHead, sessionRanHere } from '../workspace/branch/index.js';
import { isAncestor } from '../workspace/target-tips.js';
import type { Rejected } from './check.js';
import type { PushExtra, PushLine } from './remote.js';
import {
  BRANCH_NS,
  BRANCH_PUSH_SPEC,
  branchOfRef,
  branchRef,
  HEADS_NS,
  leaseOption,
  pushOidSpec,
  taskRef,
  trackingPrefix,
  trackingRef,
} from '../core/names.js';
import { landedOf } from '../model/details.js';

// A task's work branch travels with it: local refs/heads/lazy/<id> <-> the remote's
// refs/heads/lazy/<id>, with the remote-tracking copy refs/remotes/<remote>/lazy/<id> as
// the tip this clone last saw there. Only branches of known tasks travel, named by task id.
// Invariant: a branch is pushed fast-forward only; a deletion always carries a lease.

/** Above this many ids one walk of the tracking folder is cheaper than naming each ref. */
const EXACT_MAX = 2000;

/** refs/heads/lazy/<task id> → the id; anything else (lazy/../x, lazy/notatask, deeper names) → null. */
export function branchIdOf(ref: string): string | null {
  if (!ref.startsWith(BRANCH_NS)) return null;
  const id = ref.slice(BRANCH_NS.length);
  return isTaskId(id) ? id : null;
}

/** This clone's task branches and the tips it last saw on the remote, from one for-each-ref. */
export interface BranchState {
  local: Map<string, string>;
  tracking: Map<string, string>;
  /** Other branches under lazy/ (not named by a task id): never sent, so held back from the push pattern. */
  others: Map<string, string>;
}

/**
 * With `ids`, only their tracking refs (and those of every local branch) are read, by exact name: the tracking folder
 * may also hold refs/remotes/<remote>/lazy/tasks/* (plain git fetch after init --remote), thousands of refs to walk.
 */
export async function branchState(cwd: string, remote: string, ids?: Iterable<string>): Promise<BranchState> {
  const track = trackingPrefix(remote);
  const list = async (patterns: string[]) =>
    patterns.length
      ? (await git(['for-each-ref', '--format=%(objectname) %(refname)', ...patterns], { cwd })).stdout
      : '';
  let text: string;
  if (!ids) text = await list([BRANCH_NS, track]);
  else {
    const heads = await list([BRANCH_NS]);
    const want = new Set(ids);
    for (const line of heads.split('\n')) {
      const id = branchIdOf(line.slice(41));
      if (id) want.add(id);
    }
    text =
      heads +
      '\n' +
      (want.size > EXACT_MAX ? await list([track]) : await list([...want].map((id) => trackingRef(remote, id))));
  }
  const out: BranchState = { local: new Map(), tracking: new Map(), others: new Map() };
  for (const line of text.split('\n')) {
    const [oid, ref] = line.split(' ');
    if (!oid || !ref) continue;
    const id = branchIdOf(ref);
    if (id) out.local.set(id, oid);
    else if (ref.startsWith(BRANCH_NS)) out.others.set(ref, oid);
    else if (ref.startsWith(track) && isTaskId(ref.slice(track.length))) out.tracking.set(ref.slice(track.length), oid);
  }
  return out;
}

/** Views of the given tasks (those that cannot be read are left out: their branches stay where they are). */
export async function viewsOf(reader: TaskReader, ids: Iterable<string>, known?: Map<string, TaskView | TaskRead>) {
  const out = new Map<string, TaskView>();
  const todo: string[] = [];
  for (const id of ids) {
    const v = known?.get(id);
    if (v) out.set(id, 'docs' in v ? foldTask(v.docs) : v);
    else todo.push(id);
  }
  if (todo.length === 0) return out;
  const read = await reader.readMany(todo.map((id) => ({ id, tip: taskRef(id) })));
  for (const [id, r] of read) if (!(r instanceof LazyError)) out.set(id, foldTask(r.docs));
  return out;
}

/** What a push did with the branches: lists are [] when empty. */
export interface BranchPush {
  new: string[];
  pushed: string[];
  deleted: string[];
  /** The remote branch has commits this clone lacks (and maybe the other way round): never overwritten. */
  diverged: Rejected[];
  /** The remote branch moved on and this clone adds nothing: a pull fast-forwards it. */
  behind: string[];
  /** A deletion whose lease failed: someone pushed to the branch since this clone last saw it. */
  lease_failed: Rejected[];
  /** Refused by the remote (a hook, permissions). */
  refused: Rejected[];
  /** Branches whose task a pull would refuse, never sent. */
  skipped: Rejected[];
  up_to_date: number;
}

export const emptyBranchPush = (): BranchPush => ({
  new: [],
  pushed: [],
  deleted: [],
  diverged: [],
  behind: [],
  lease_failed: [],
  refused: [],
  skipped: [],
  up_to_date: 0,
});

export interface BranchPlan {
  extra: PushExtra;
  /** Local branches that differ from the remote's but are held back (negative refspecs). */
  except: string[];
  state: BranchState;
  remoteTips: Map<string, string>;
  /** How many branches this push sends (updates, creations and deletions). */
  sends: number;
}

/**
 * Which branches go with a push: every local lazy/<id> of a task that travels, that differs from the remote's
 * (one pattern, held-back ones as negative refspecs), plus leased deletions of branches an accept or close here removed.
 */
export async function planBranchPush(
  cwd: string,
  here: Place,
  reader: TaskReader,
  tips: Map<string, string>,
  tasks: { here: Set<string>; skipped: Set<string>; read: Map<string, TaskRead>; state: BranchState },
  out: BranchPush,
): Promise<BranchPlan> {
  const { state } = tasks;
  const remoteTips = new Map<string, string>();
  for (const [ref, oid] of tips) {
    const id = branchIdOf(ref);
    if (id) remoteTips.set(id, oid);
  }
  const except = [...state.others].filter(([ref, oid]) => tips.get(ref) !== oid).map(([ref]) => ref);
  const fresh: string[] = [];
  for (const [id, tip] of state.local) {
    const theirs = remoteTips.get(id);
    if (theirs === tip) out.up_to_date++;
    else if (!tasks.here.has(id))
      except.push(branchRef(id)); // not a task here: not ours to send
    else if (tasks.skipped.has(id)) {
      except.push(branchRef(id));
      out.skipped.push({
        id,
        reason: 'its task is skipped (a pull would refuse it)',
        details: { ref: branchRef(id) },
      });
    } else if (!theirs && state.tracking.has(id)) {
      // Deleted on the remote since this clone saw it there (a pull request closed, a teammate's
      // accept): never resurrected by a push; a pull settles what it means first.
      except.push(branchRef(id));
      out.behind.push(id);
    } else if (!theirs) fresh.push(id);
    else if (state.tracking.get(id) === tip) {
      except.push(branchRef(id)); // the remote moved on since this clone saw it at our tip
      out.behind.push(id);
    }
  }
  const gone = [...remoteTips.keys()].filter(
    (id) => !state.local.has(id) && tasks.here.has(id) && !tasks.skipped.has(id) && state.tracking.has(id),
  );
  const views = await viewsOf(reader, [...fresh, ...gone], tasks.read);
  // A finished task's branch is never re-created on the remote.
  for (const id of fresh) if (!views.get(id) || isTerminal(views.get(id)!.status)) except.push(branchRef(id));
  const extra: PushExtra = { specs: [], options: [] };
  for (const id of gone) {
    const v = views.get(id);
    const seen = state.tracking.get(id)!;
    if (!v || !(await removedHere(cwd, v, seen, here))) continue;
    extra.options.push(leaseOption(branchRef(id), seen));
    extra.specs.push(pushOidSpec('', branchRef(id)));
  }
  const held = new Set(except);
  const sends =
    [...state.local].filter(([id, tip]) => remoteTips.get(id) !== tip && !held.has(branchRef(id))).length +
    extra.specs.length;
  if (state.local.size > 0) extra.specs.unshift(BRANCH_PUSH_SPEC);
  return { extra, except, state, remoteTips, sends };
}

/**
 * A remote branch this clone may delete: its task ended and the branch went with it, and the tip last seen there
 * is the work that landed (the accepted head, or inside the recorded commit), or the abandoned task ran here (its
 * close removed the branch), or every commit of it is on another local branch.
 */
async function removedHere(cwd: string, v: TaskView, seen: string, here: Place): Promise<boolean> {
  if (!isTerminal(v.status)) return false;
  const end = v.changelog.filter((c) => !c.set_aside && c.status === v.status).at(-1);
  if (!end) return false;
  if (v.status === 'abandoned') return sessionRanHere(v, here) || (await onAnotherBranch(cwd, seen));
  const { commit, head } = landedOf(end);
  if (lastReviewHead(v) === seen || head === seen) return true;
  return commit !== null && /^[0-9a-f]{40}$/.test(commit) && (await isAncestor(cwd, seen, commit));
}

async function onAnotherBranch(cwd: string, commit: string): Promise<boolean> {
  const r = await git(['for-each-ref', '--count=1', '--contains', commit, HEADS_NS], { cwd, allowFail: true });
  return r.stdout.trim() !== '';
}

/** Sorts git's verdict on one branch ref into the report. */
export async function classifyBranch(cwd: string, plan: BranchPlan, l: PushLine, out: BranchPush): Promise<void> {
  const id = branchIdOf(l.ref);
  if (!id) return;
  const details = { ref: l.ref, git: l.summary };
  if (l.flag === '*') out.new.push(id);
  else if (l.flag === ' ' || l.flag === '+') out.pushed.push(id);
  else if (l.flag === '-') out.deleted.push(id);
  else if (l.flag !== '!') return;
  else if (/remote rejected/.test(l.summary))
    out.refused.push({ id, reason: `refused by the remote (git: ${l.summary})`, details });
  else if (!plan.state.local.has(id))
    out.lease_failed.push({
      id,
      reason: `not deleted: the remote branch moved since this clone last saw it (git: ${l.summary}); lazy pull`,
      details,
    });
  else {
    const mine = plan.state.local.get(id)!;
    const theirs = plan.remoteTips.get(id);
    if (theirs && (await isAncestor(cwd, mine, theirs))) out.behind.push(id);
    else
      out.diverged.push({
        id,
        reason:
          `the remote branch ${branchOfRef(l.ref)} has commits this clone lacks ` +
          `(git: ${l.summary}); not overwritten: lazy pull, and merge the two by hand if they diverged`,
        details: { ...details, local_tip: mine, ...(theirs ? { remote_tip: theirs } : {}) },
      });
  }
}
