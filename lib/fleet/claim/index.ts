import { placeOf } from '../../core/place.js';
import { selfIdentity } from '../../core/proc.js';
import type { TaskView } from '../../model/fold.js';
import type { Draft } from '../../store/draft.js';
import { casRef } from '../../store/refs.js';
import { launchTurn } from '../../agents/launch.js';
import type { RunRecord } from '../../agents/runs.js';
import { planResume, planStart, type RunRef } from '../../agents/turns.js';
import { dirtyFiles, revParse, worktreePath } from '../../workspace/worktree.js';
import { writeLease, type LeaseDoc } from '../lease.js';
import { casPush, type RefUpdate, type Verdict } from './push.js';
import { saveClaim, saveLease, type ClaimState } from '../claims.js';
import { resumable, startable, type Pick } from '../pick.js';
import type { FleetDeps } from '../deps.js';
import { branchRef, leaseRef, taskBranch, taskRef } from '../../core/names.js';
import { landingBranch } from '../../model/landing.js';

// Claiming a task: the turn is launched exactly as start or auto-resume launch it, with the
// worker's claim stamped on the move into working, and the supervisor is spawned only after
// the claim push won on the remote. A refused claim is undone here and never runs.

export type ClaimResult =
  /**
   * `ms`: from the pick to the remote's acceptance (the worktree, the claim commit, the lease and the push; the
   * agent starts after); `push_ms`: the compare-and-swap push alone.
   */
  | { kind: 'claimed'; claim: ClaimState; view: TaskView; ms: number; push_ms: number }
  /** Another worker won the race (the remote moved on): nothing ran, the local claim commit was undone. */
  | { kind: 'lost_race'; verdict: Verdict }
  /** A takeover that left the task interrupted for a person (the breaker tripped): the dead lease is gone. */
  | { kind: 'released'; reason: string };

class Refused extends Error {
  constructor(readonly verdict: Verdict) {
    super('the claim push was refused');
  }
}

/** What the remote held when this worker pulled: the task, its work branch and its lease. */
export interface Seen {
  task: string | null;
  branch: string | null;
}

/** One claim under way: what the planner and the claim push share with claimTask. */
interface Claiming {
  deps: FleetDeps;
  pick: Pick;
  seen: Seen;
  host: string;
  clone: string;
  until: string;
  /** The last local commit this claim made: the undo moves the task ref back only from there. */
  ours: string | undefined;
  /** When the claim push went out, and when the remote accepted it. */
  pushed: number;
  won: number;
  /** Saved once the claim push won. */
  state?: ClaimState;
}

export async function claimTask(
  deps: FleetDeps,
  pick: Pick,
  seen: Seen,
  agent: string | undefined,
): Promise<ClaimResult> {
  const { store, repo } = deps;
  const t0 = deps.now();
  const before = (await store.view(pick.id)).tip;
  let ours: string | undefined;
  if (pick.kind === 'takeover') {
    let taken: TaskView;
    try {
      taken = await recordTakeover(deps, pick);
    } catch (e) {
      if (e instanceof Refused) return { kind: 'lost_race', verdict: e.verdict };
      throw e;
    }
    ours = taken.tip;
    if (!resumable(taken, deps.now())) return releaseDead(deps, pick, seen, before, taken);
  }
  const { host, clone } = placeOf(repo);
  const until = new Date(deps.now() + deps.leaseMs).toISOString();
  const c: Claiming = { deps, pick, seen, host, clone, until, ours, pushed: 0, won: 0 };
  // Only a resume reads it (its prompt says what the crashed turn left); a start has no worktree yet.
  const dirty =
    pick.kind !== 'start' &&
    (await dirtyFiles(worktreePath(repo, pick.id, deps.config.worktree_dir)).catch(() => [])).length > 0;
  try {
    const { view } = await launchTurn(repo, store, deps.launcher, {
      id: pick.id,
      op: 'work',
      actor: 'system',
      agent,
      config: deps.config,
      fleet: true,
      plan: (d, r) => planClaim(c, dirty, d, r),
      beforeSpawn: (v, rec) => pushClaim(c, v, rec),
    });
    return { kind: 'claimed', claim: c.state!, view, ms: c.won - t0, push_ms: c.won - c.pushed };
  } catch (e) {
    if (c.state) throw e; // claimed, but the supervisor did not start: the caller releases the claim
    await undo(deps, pick.id, before, c.ours);
    if (e instanceof Refused) return { kind: 'lost_race', verdict: e.verdict };
    throw e;
  }
}

/** The turn, as start or auto-resume plans it, with the worker's claim stamped on the move into working. */
function planClaim(c: Claiming, dirty: boolean, d: Draft, r: { id: string; host: string; session: string }) {
  const { deps, pick, host, clone, until } = c;
  const run: RunRef = { ...r, claim: { host, clone, lease_until: until } };
  // Under the task's lock: a task that moved since the pick is not claimed (nothing was pushed).
  const still = pick.kind === 'start' ? startable(d.view, deps.now()) : resumable(d.view, deps.now());
  if (!still) throw new Refused({ ok: false, stale: [], refused: [] });
  if (pick.kind === 'start') return planStart(d, run);
  const upstream = landingBranch(d.view);
  return planResume(d, run, { actor: 'system', trigger: 'auto_resume', dirty, upstream });
}

/** The claim commit, its lease and the work branch, pushed by compare-and-swap; saved here once the push won. */
async function pushClaim(c: Claiming, v: TaskView, rec: RunRecord): Promise<void> {
  const { deps, pick, seen, host, clone, until } = c;
  const { store, repo } = deps;
  const doc: LeaseDoc = {
    task: pick.id,
    run: rec.id,
    host,
    clone,
    lease_ms: deps.leaseMs,
    until,
    renewed_at: new Date(deps.now()).toISOString(),
  };
  const lease = await writeLease(repo, doc, pick.lease?.oid ?? null, await store.person());
  const branch = await revParse(repo.cwd, taskBranch(pick.id));
  const updates: RefUpdate[] = [
    { ref: taskRef(pick.id), next: v.tip, expected: seen.task },
    { ref: leaseRef(pick.id), next: lease, expected: pick.lease?.oid ?? null },
  ];
  // The branch travels with the claim, so a worker that takes the task over finds it.
  if (branch && branch !== seen.branch) updates.push({ ref: branchRef(pick.id), next: branch, expected: seen.branch });
  c.ours = v.tip;
  c.pushed = deps.now();
  const verdict = await casPush(repo, deps.remote, updates);
  if (!verdict.ok) throw new Refused(verdict);
  c.won = deps.now();
  c.state = {
    task: pick.id,
    run: rec.id,
    remote: deps.remote,
    host,
    clone,
    lease,
    until,
    lease_ms: deps.leaseMs,
    worker: selfIdentity(),
    task_tip: v.tip,
    branch_tip: branch ?? seen.branch,
  };
  saveClaim(repo.lazyDir, c.state);
  saveLease(repo.lazyDir, pick.id, { run: rec.id, lease, until });
}

/** The takeover entry, committed here first: the dead worker's run ends as a crash (the breaker counts it). */
async function recordTakeover(deps: FleetDeps, pick: Pick): Promise<TaskView> {
  const dead = pick.lease!.doc!;
  const { view } = await deps.store.mutate(
    pick.id,
    'takeover',
    (d) => {
      if (d.status !== 'working') throw new Refused({ ok: false, stale: [], refused: [] });
      d.transition(
        'interrupted',
        'turn_crashed',
        `lease of ${dead.host} expired`,
        {
          run: dead.run,
          host: dead.host,
          clone: dead.clone,
          details: { lease_expired: { host: dead.host, run: dead.run, until: dead.until } },
        },
        'system',
      );
    },
    { actor: 'system' },
  );
  return view;
}

/** A takeover the breaker stops: the crash is recorded and pushed, and the dead lease deleted, in one push. */
async function releaseDead(
  deps: FleetDeps,
  pick: Pick,
  seen: Seen,
  before: string,
  taken: TaskView,
): Promise<ClaimResult> {
  const verdict = await casPush(deps.repo, deps.remote, [
    { ref: taskRef(pick.id), next: taken.tip, expected: seen.task },
    { ref: leaseRef(pick.id), next: null, expected: pick.lease!.oid },
  ]).catch(async (e: unknown) => {
    await undo(deps, pick.id, before, taken.tip);
    throw e;
  });
  if (!verdict.ok) {
    await undo(deps, pick.id, before, taken.tip);
    return { kind: 'lost_race', verdict };
  }
  return { kind: 'released', reason: `lease of ${pick.lease!.doc!.host} expired; left interrupted for a person` };
}

/** Moves the local task ref back to its tip before the claim, by compare-and-swap from the claim's own last commit. */
async function undo(deps: FleetDeps, id: string, before: string, ours: string | undefined): Promise<void> {
  if (ours && ours !== before)
    await casRef(deps.repo.cwd, taskRef(id), before, ours, `lazy: work ${id}: claim refused`);
}
