import { now, sleep } from '../core/clock.js';
import { readClaim, saveClaim } from './claims.js';
import { pull } from '../sync/sync.js';
import { releaseHeld, renewalDue, renewDue } from './running.js';
import { liveness } from '../core/proc.js';
import { leaseMsOf, type FleetDeps } from './deps.js';
import type { Repo } from '../core/repo.js';
import type { Store } from '../store/store.js';
import type { Config } from '../store/config/index.js';
import type { Launcher } from '../core/launcher.js';
import type { RunRecord } from '../agents/runs.js';
import type { Unkept as SupervisorUnkept } from '../agents/supervisor/supervisor.js';
import { branchRef, taskRef } from '../core/names.js';

// The supervisor's hold on a fleet run's claim. The lease is renewed on the supervisor's own
// schedule, beside its agent, so a worker busy pulling and claiming (or killed outright) never
// lets a live turn's lease lapse; and a lease the supervisor cannot renew in time ends its agent
// before it runs out. Invariant: at most one agent per task: an agent runs only under a lease its
// own supervisor could renew, and stops a third of a lease before that lease could be taken over.

export interface Keeping {
  /** Stops renewing (the turn is over); resolves once no renewal of this keeper is in flight. */
  end(): Promise<void>;
  /**
   * Once the outcome is recorded: if the worker that claimed the run is gone, releases the claim itself (outcome
   * and branch pushed, lease deleted), so the turn's work is not lost with its worker; what it did, or null.
   */
  release(): Promise<string | null>;
}

/** How often a release the remote turned away (it moved meanwhile) is pulled and pushed again. */
const MAX_BEHIND = 5;

/** How long to wait before trying a renewal the remote could not take again. */
const retryMs = (leaseMs: number) => Math.max(50, Math.min(2000, leaseMs / 30));

export function keepClaim(
  deps: FleetDeps,
  task: string,
  run: string,
  onUnkept: (u: SupervisorUnkept) => Promise<void>,
  note: (m: string) => void,
): Keeping {
  const over = new AbortController();
  // The agent is gone well before the lease could lapse: the stop comes a third of a lease early.
  const graceMs = deps.leaseMs / 6;
  const pause = (ms: number, also?: AbortSignal) =>
    sleep(Math.max(0, ms), also ? AbortSignal.any([over.signal, also]) : over.signal).then(
      () => true,
      () => false,
    );
  const kept = (async () => {
    for (;;) {
      const c = readClaim(deps.repo.lazyDir, task);
      if (!c || c.run !== run) return; // not this run's claim (released, or no claim was made)
      const until = c.until ? Date.parse(c.until) : deps.now() + deps.leaseMs;
      const due = renewalDue(c, deps.leaseMs);
      if (deps.now() < due) {
        if (!(await pause(due - deps.now()))) return;
        continue;
      }
      // Past two thirds of the lease with no renewal (a frozen machine, an unreachable remote): stop now.
      const deadline = until - deps.leaseMs / 3;
      const unkept = () =>
        onUnkept({ reason: `its lease (until ${c.until}) could not be renewed in time`, lost: false, graceMs });
      if (deps.now() >= deadline) return unkept();
      // A push that hangs (a remote gone silent) must not outlast the deadline either.
      const attempt = renewDue(deps, task, run).catch((e: unknown) => {
        note(`lease renewal failed: ${(e as Error).message}; trying again`);
        return 'retry' as const;
      });
      const cut = new AbortController();
      const r = await Promise.race([
        attempt,
        pause(deadline - deps.now(), cut.signal).then((due) => (due ? ('late' as const) : ('ended' as const))),
      ]);
      cut.abort();
      if (r === 'late') return unkept();
      if (r === 'ended') {
        if (over.signal.aborted) await attempt; // end() waits for no renewal in flight
        if (over.signal.aborted) return;
        continue;
      }
      if (r === 'lost') return onUnkept({ reason: 'another worker took the task over', lost: true, graceMs });
      if (r === 'gone') return;
      if (r === 'retry' && !(await pause(retryMs(deps.leaseMs)))) return;
      if (over.signal.aborted) return;
    }
  })();
  return {
    end: async () => {
      over.abort();
      await kept;
    },
    release: () => releaseOrphan(deps, task, run),
  };
}

async function releaseOrphan(deps: FleetDeps, task: string, run: string): Promise<string | null> {
  const c = readClaim(deps.repo.lazyDir, task);
  // While its worker lives, the worker releases (it pulls and pushes again when the remote moved).
  if (!c || c.run !== run || !c.worker || liveness(c.worker) !== 'dead') return null;
  try {
    for (let tries = 0; tries < MAX_BEHIND; tries++) {
      const out = await releaseHeld(deps, task, run);
      if (out.kind === 'released')
        return `its worker is gone: the claim is released here (the outcome pushed to ${c.remote})`;
      if (out.kind === 'gone') return null;
      if (out.kind === 'lost') return 'its worker is gone, and the claim was lost meanwhile: nothing pushed';
      // The remote moved (a teammate's comment): pulled in and merged, as the worker would, then pushed again.
      const { tips } = await pull({ repo: deps.repo, reader: deps.store.reader }, c.remote);
      const cur = readClaim(deps.repo.lazyDir, task);
      if (!cur || cur.run !== run) return null;
      saveClaim(deps.repo.lazyDir, {
        ...cur,
        task_tip: tips.get(taskRef(task)) ?? cur.task_tip,
        branch_tip: tips.get(branchRef(task)) ?? null,
      });
    }
    return `its worker is gone and ${c.remote} kept moving: the claim is left for its lease to lapse`;
  } catch (e) {
    return `its worker is gone, and the release failed: ${(e as Error).message}`;
  }
}

/** The supervisor's keeper, over the clone its command opened: the claim file names the remote. */
export function claimKeeper(app: { repo: Repo; store: Store; launcher: Launcher }, config: Config) {
  return (rec: RunRecord, onUnkept: (u: SupervisorUnkept) => Promise<void>, note: (m: string) => void): Keeping => {
    const c = readClaim(app.repo.lazyDir, rec.task);
    if (!c || c.run !== rec.id) return { end: async () => {}, release: async () => null };
    const deps: FleetDeps = {
      repo: app.repo,
      store: app.store,
      launcher: app.launcher,
      config,
      remote: c.remote,
      leaseMs: c.lease_ms ?? leaseMsOf(config),
      now,
    };
    return keepClaim(deps, rec.task, rec.id, onUnkept, note);
  };
}
