import { writeFileSync } from 'node:fs';
import { LazyError } from '../core/errors.js';
import type { TaskDocs } from '../model/docs.js';
import { casRef } from '../store/refs.js';
import { clearActive } from '../store/markers.js';
import { readAgentIdentity, readRun, runDir, runFiles } from '../agents/runs.js';
import { terminateVerified } from '../agents/supervisor/kill.js';
import { revParse } from '../workspace/worktree.js';
import { isAncestor } from '../workspace/target-tips.js';
import { readLease, writeLease } from './lease.js';
import { git } from '../core/git.js';
import { casPush, type RefUpdate } from './claim/push.js';
import { dropClaim, readClaim, saveLease, type ClaimState } from './claims.js';
import { withLock } from '../core/lock.js';
import { isThisProcess } from '../core/proc.js';
import type { FleetDeps } from './deps.js';
import { nowIso } from '../core/clock.js';
import { branchRef, leaseRef, taskBranch, taskRef } from '../core/names.js';

// A claim while its turn runs and when it ends: renewal (a new lease commit pushed with the
// last one expected), release (the outcome, the work branch and the lease's deletion in one
// atomic push, each with its expected old value), and a lost claim's end (a refused push:
// another worker took the task over, so this turn stops without writing an outcome).

/** Pushes a fresh lease: 'lost' when the remote refused it, 'retry' when another push held the remote's locks. */
export async function renew(deps: FleetDeps, c: ClaimState): Promise<'renewed' | 'retry' | 'lost'> {
  const now = deps.now();
  const until = new Date(now + deps.leaseMs).toISOString();
  const doc = {
    task: c.task,
    run: c.run,
    host: c.host,
    ...(c.clone ? { clone: c.clone } : {}),
    lease_ms: deps.leaseMs,
    until,
    renewed_at: new Date(now).toISOString(),
  };
  const lease = await writeLease(deps.repo, doc, c.lease, await deps.store.person());
  const v = await casPush(deps.repo, deps.remote, [{ ref: leaseRef(c.task), next: lease, expected: c.lease }]);
  if (v.raced) return 'retry';
  if (!v.ok) return (await adoptOwnLease(deps, c)) ? 'retry' : 'lost';
  c.lease = lease;
  c.until = until;
  saveLease(deps.repo.lazyDir, c.task, { run: c.run, lease, until });
  return 'renewed';
}

/**
 * A refused push whose lease on the remote is still this run's: an earlier renewal landed but was never
 * acknowledged (the connection dropped, the process died before it saved it). It is taken as the claim's lease
 * (true); anything else on the remote (another run's lease, none) means the claim is lost (false).
 */
async function adoptOwnLease(deps: FleetDeps, c: ClaimState): Promise<boolean> {
  const r = await git(['ls-remote', deps.remote, leaseRef(c.task)], { cwd: deps.repo.cwd, allowFail: true });
  const oid = r.code === 0 ? r.stdout.split('\t')[0]?.trim() : '';
  if (!oid || oid === c.lease) return false;
  // Only a lease this clone wrote can be read here without a fetch: another machine's is not ours anyway.
  const doc = await readLease(deps.store.reader.objects, oid);
  if (!doc || doc.task !== c.task || doc.run !== c.run) return false;
  c.lease = oid;
  c.until = doc.until;
  saveLease(deps.repo.lazyDir, c.task, { run: c.run, lease: oid, until: doc.until });
  return true;
}

/** When a claim's lease is renewed: once a third of it has passed. */
export const renewalDue = (c: ClaimState, leaseMs: number) => (c.until ? Date.parse(c.until) - (2 * leaseMs) / 3 : 0);

export type Renewal = 'renewed' | 'fresh' | 'retry' | 'lost' | 'gone';

/**
 * Renews the run's claim if it is due, under the lease's lock: the supervisor and the worker both call this,
 * and whoever comes second finds it fresh. 'gone': the claim is no longer this run's (released, or never made).
 */
export async function renewDue(deps: FleetDeps, task: string, run: string): Promise<Renewal> {
  // Read first without the lock: most calls (the worker's every tick) find it fresh and take no lock.
  const seen = readClaim(deps.repo.lazyDir, task);
  if (!seen || seen.run !== run) return 'gone';
  if (deps.now() < renewalDue(seen, deps.leaseMs)) return 'fresh';
  return withLock(deps.repo.lazyDir, `lease-${task}`, async () => {
    const c = readClaim(deps.repo.lazyDir, task);
    if (!c || c.run !== run) return 'gone';
    if (deps.now() < renewalDue(c, deps.leaseMs)) return 'fresh';
    return renew(deps, c);
  });
}

/**
 * A claim whose run this clone no longer has (the supervisor never started, or its run files are
 * gone): it ends as a crash here, so the release pushes an outcome and no claim is left without an owner.
 */
export async function endAbandoned(deps: FleetDeps, c: ClaimState): Promise<boolean> {
  if (readRun(deps.repo.lazyDir, c.run)) return false;
  const reason = 'the worker could not run the turn it claimed (its run is gone)';
  await deps.store.mutate(
    c.task,
    'turn',
    (d) => {
      if (d.status === 'working' && d.view.current_run === c.run)
        d.transition('interrupted', 'turn_crashed', reason, { run: c.run, host: c.host }, 'system');
    },
    { actor: 'system' },
  );
  return true;
}

export type Released =
  | { kind: 'released'; tip: string; branch: string | null; branch_skipped?: string }
  /** The task ref or branch moved on the remote (a teammate's comment): pull, then release again. */
  | { kind: 'behind'; refs: string[] }
  | { kind: 'lost' };

/**
 * The release of the run's claim as it stands on disk, under the lease's lock: the worker and (when the worker is
 * gone) the run's supervisor both release, and whoever comes second finds it gone.
 */
export function releaseHeld(deps: FleetDeps, task: string, run: string): Promise<Released | { kind: 'gone' }> {
  return withLock(deps.repo.lazyDir, `lease-${task}`, async () => {
    const c = readClaim(deps.repo.lazyDir, task);
    return c && c.run === run ? release(deps, c) : { kind: 'gone' as const };
  });
}

/** The release push: what the task holds here now, its work branch, and the lease deleted. */
export async function release(deps: FleetDeps, c: ClaimState): Promise<Released> {
  const { repo } = deps;
  const tip = (await deps.store.view(c.task)).tip;
  const branch = await revParse(repo.cwd, taskBranch(c.task));
  const updates: RefUpdate[] = [];
  if (tip !== c.task_tip) updates.push({ ref: taskRef(c.task), next: tip, expected: c.task_tip });
  let skipped: string | undefined;
  if (branch && branch !== c.branch_tip) {
    // Fast-forward only: a branch someone else moved on the remote is never overwritten.
    if (!c.branch_tip || (await isAncestor(repo.cwd, c.branch_tip, branch)))
      updates.push({ ref: branchRef(c.task), next: branch, expected: c.branch_tip });
    else skipped = `${taskBranch(c.task)} diverged from the remote's copy; it was not pushed`;
  }
  updates.push({ ref: leaseRef(c.task), next: null, expected: c.lease });
  const v = await casPush(repo, deps.remote, updates);
  if (v.ok) {
    dropClaim(repo.lazyDir, c.task);
    return { kind: 'released', tip, branch, ...(skipped ? { branch_skipped: skipped } : {}) };
  }
  if (v.raced) return { kind: 'behind', refs: [] };
  if (v.stale.includes(leaseRef(c.task)) && !(await adoptOwnLease(deps, c))) return { kind: 'lost' };
  return { kind: 'behind', refs: v.stale };
}

/**
 * A lost claim: the supervisor goes first (killed outright, so it records nothing), then the
 * agent's group by the verified kill; the marker is cleared. What this clone committed for the
 * lost run alone is dropped (the task ref goes back to the last tip the remote had from us);
 * anything else stays for the next pull to merge, where fencing sets the lost run's outcome aside.
 */
export async function endLost(deps: FleetDeps, c: ClaimState): Promise<{ reset: boolean }> {
  const { lazyDir } = deps.repo;
  const rec = readRun(lazyDir, c.run);
  // A supervisor that found the claim lost itself has ended its agent and exited (one run in this process: a test's).
  if (rec?.supervisor && !isThisProcess(rec.supervisor)) await terminateVerified(rec.supervisor, 0);
  const grace = deps.config.stop_grace_ms ?? 10_000;
  await terminateVerified(readAgentIdentity(lazyDir, c.run), grace, () => {
    if (rec) writeFileSync(runFiles(runDir(lazyDir, c.run)).stop, nowIso());
  });
  clearActive(lazyDir, c.task, c.run);
  const reset = await dropLostCommits(deps, c);
  dropClaim(lazyDir, c.task);
  return { reset };
}

async function dropLostCommits(deps: FleetDeps, c: ClaimState): Promise<boolean> {
  const reader = deps.store.reader;
  const local = await deps.store.read(c.task);
  if (local.docs.tip === c.task_tip) return false;
  const pushed = (await reader.readMany([{ id: c.task, tip: c.task_tip }])).get(c.task);
  if (!pushed || pushed instanceof LazyError || !onlyRun(pushed.docs, local.docs, c.run)) return false;
  return (
    (await casRef(deps.repo.cwd, taskRef(c.task), c.task_tip, local.docs.tip, `lazy: work ${c.task}: claim lost`)) ===
    'ok'
  );
}

/** Whether every entry `after` adds to `before` belongs to `run` (and nothing else changed). */
function onlyRun(before: TaskDocs, after: TaskDocs, run: string): boolean {
  if (after.task.clock !== before.task.clock) return false;
  // A decision is a person's: never the lost run's alone.
  if (after.decisions.length !== before.decisions.length) return false;
  for (const k of ['turns', 'changelog', 'violations'] as const) {
    const had = new Set<string>(before[k].map((e) => e.id));
    if (after[k].some((e) => !had.has(e.id) && e.run !== run)) return false;
  }
  const sessions = new Map(before.sessions.map((s) => [s.id, s.clock]));
  return after.sessions.every((s) => sessions.get(s.id) === s.clock);
}
