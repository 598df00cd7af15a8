import { thisHost } from '../../core/proc.js';
import type { TaskView } from '../../model/fold.js';
import { pickable, queueLabel } from '../../model/schedule.js';
import { readOutcome } from '../../agents/runs.js';
import { pull } from '../../sync/sync.js';
import { defaultRemote } from '../../sync/remote.js';
import { candidates, pinnedTasks } from '../../fleet/pick.js';
import { claimTask } from '../../fleet/claim/index.js';
import { leaseMsOf, type FleetDeps } from '../../fleet/deps.js';
import { listClaims, readClaim, saveClaim, type ClaimState } from '../../fleet/claims.js';
import { endAbandoned, endLost, releaseHeld, renewDue } from '../../fleet/running.js';
import { EXIT, LazyError, pushRejected, usageError } from '../../core/errors.js';
import { syncDeps } from '../sync.js';
import { reconcileNow, type App } from '../app.js';
import { Known } from './state.js';
import { leaseRef } from '../../core/names.js';
import { leaseExpiredRun } from '../../model/details.js';

// lazy work: a foreground loop, not a daemon. Pull, pick the best task nobody holds, claim it
// by compare-and-swap on the remote, run the turn as start or auto-resume does, push its
// outcome with its work branch, repeat. Leases are renewed at a third of their length.

export interface WorkOptions {
  remote?: string;
  agent?: string;
  max?: number;
  drain?: boolean;
  now?: boolean;
}

export type WorkEventKind = 'claimed' | 'finished' | 'lost' | 'released';
export interface WorkEvent {
  task: string;
  run: string | null;
  detail: string;
  /** On a claim: its latency in ms, from the pick to the remote's acceptance, and its compare-and-swap push alone. */
  ms?: number;
  push_ms?: number;
}
export interface WorkResult {
  remote: string;
  host: string;
  claimed: WorkEvent[];
  finished: WorkEvent[];
  lost: WorkEvent[];
  released: WorkEvent[];
  /** Queued tasks left waiting when the worker stopped: paused, or until a usage limit's reset (`detail` says). */
  waiting: WorkEvent[];
  /** The signal that stopped the worker, if one did. */
  stopped_by: string | null;
}

/** A claim this worker runs: the claim itself is read from disk (lib/fleet/claims.ts), where its supervisor renews it. */
interface Running {
  task: string;
  run: string;
  behind: number;
  stopping: boolean;
  /** Its release push is in flight: a pull that sees the lease gone meanwhile has not found a lost claim. */
  releasing: boolean;
}

const TICK_MS = 200;
const MAX_BEHIND = 5;
const MAX_FAILURES = 10;
const TRANSIENT: string[] = ['fetch_failed', 'push_failed', 'push_rejected'];

export async function work(
  app: App,
  o: WorkOptions,
  onEvent: (kind: WorkEventKind, e: WorkEvent) => void = () => {},
): Promise<WorkResult> {
  const max = o.max ?? 1;
  if (!Number.isInteger(max) || max < 1) throw usageError(`--max takes a whole number of at least 1 (got ${o.max})`);
  const remote = await defaultRemote(app.repo, o.remote);
  const config = await app.config();
  const deps: FleetDeps = {
    repo: app.repo,
    store: app.store,
    launcher: app.launcher,
    config,
    remote,
    leaseMs: leaseMsOf(config),
    now: () => app.io.clock.now(),
  };
  const w = new Worker(app, deps, { ...o, max }, onEvent);
  return w.loop();
}

class Worker {
  readonly result: WorkResult;
  private running = new Map<string, Running>();
  private known: Known;
  private stopping: 'finish' | 'now' | null = null;
  private nextPull = 0;
  private readonly pollMs: number;
  /** Set when picking work is over: the keeper loop then ends once nothing runs. */
  private over = false;
  /** What stopped the keeper loop, for the main loop to throw. */
  private keeperFailed: unknown;
  /** One pull at a time: the keeper loop (a release behind the remote) and picking both pull. */
  private pulling: Promise<void> | null = null;
  /** Tasks named once as pinned by a lease nobody can renew (lazy stop --force breaks it). */
  private pinned = new Set<string>();

  constructor(
    private readonly app: App,
    private readonly deps: FleetDeps,
    private readonly o: WorkOptions & { max: number },
    private readonly emit: (kind: WorkEventKind, e: WorkEvent) => void,
  ) {
    this.result = {
      remote: deps.remote,
      host: thisHost(),
      claimed: [],
      finished: [],
      lost: [],
      released: [],
      waiting: [],
      stopped_by: null,
    };
    this.known = new Known(app.store);
    const poll = Number(app.io.env.LAZY_WORK_POLL_MS);
    this.pollMs = Number.isFinite(poll) && poll > 0 ? poll : 5000;
  }

  private event(kind: WorkEventKind, e: WorkEvent): void {
    this.result[kind].push(e);
    this.emit(kind, e);
  }

  /**
   * Two loops: picking work (pull, claim) and keeping it (renew, release, lose), each on its own schedule, so
   * a slow pull or a claim race never delays a renewal or a release.
   */
  async loop(): Promise<WorkResult> {
    // Claims a killed worker of this clone left: the keeper finds out at once whether they are still ours.
    for (const claim of listClaims(this.app.repo.lazyDir))
      if (claim.remote === this.deps.remote) this.track(claim.task, claim.run);
    const off = this.app.io.onSignal((sig) => {
      this.result.stopped_by ??= sig;
      this.stopping = this.o.now || this.stopping ? 'now' : 'finish';
    });
    const keeping = this.keepLoop();
    try {
      return await this.pickLoop();
    } finally {
      this.over = true;
      await keeping;
      off();
    }
  }

  private track(task: string, run: string): void {
    this.running.set(task, { task, run, behind: 0, stopping: false, releasing: false });
  }

  private async pickLoop(): Promise<WorkResult> {
    const failures = { n: 0 };
    for (;;) {
      if (this.keeperFailed) throw this.keeperFailed;
      const idle = await this.guarded(failures, () => this.pickStep());
      if (idle === undefined) continue;
      if (this.running.size === 0 && (this.stopping || (this.o.drain && idle))) {
        if (this.keeperFailed) throw this.keeperFailed;
        return this.finalResult();
      }
      await this.app.io.clock.poll(TICK_MS);
    }
  }

  private async keepLoop(): Promise<void> {
    const failures = { n: 0 };
    try {
      while (!(this.over && this.running.size === 0) && !this.keeperFailed) {
        await this.guarded(failures, () => this.tick());
        if (this.over && this.running.size === 0) return;
        await this.app.io.clock.poll(TICK_MS);
      }
    } catch (e) {
      this.keeperFailed = e;
    }
  }

  /**
   * One step, with the remote's passing troubles (unreachable, a push that failed in transit) tried again after a
   * pause: the claims are kept (on disk too). undefined after such a failure.
   */
  private async guarded<T>(failures: { n: number }, step: () => Promise<T>): Promise<T | undefined> {
    try {
      const r = await step();
      failures.n = 0;
      return r;
    } catch (e) {
      if (!(e instanceof LazyError) || !TRANSIENT.includes(e.code) || ++failures.n > MAX_FAILURES) throw e;
      this.app.io.warn(`${e.message}; trying again (${failures.n} of ${MAX_FAILURES})`);
      await this.app.io.clock.sleep(this.pollMs); // lazy's own pause before a retry: a test's clock moves past it
      return undefined;
    }
  }

  /** The summary, with what is left in the queue that no worker may take yet. */
  private finalResult(): WorkResult {
    const now = this.deps.now();
    for (const v of this.known.claimable()) {
      const label = queueLabel(v.schedule, now);
      if (v.schedule.queued && !pickable(v.schedule, now) && label)
        this.result.waiting.push({ task: v.id, run: null, detail: label });
    }
    return this.result;
  }

  /** New claims when there is room; true when a pull found nothing to take. */
  private async pickStep(): Promise<boolean> {
    if (this.stopping || this.running.size >= this.o.max || this.deps.now() < this.nextPull) return false;
    const idle = !(await this.fill());
    if (idle) this.nextPull = this.deps.now() + this.pollMs;
    return idle;
  }

  /** Pulls, then claims the best tasks until this worker is full; false when there was nothing to take. */
  private async fill(): Promise<boolean> {
    await this.pull();
    let took = false;
    for (let races = 0; races < 20 && !this.stopping && this.running.size < this.o.max;) {
      const now = this.deps.now();
      const busy = new Set([...this.running.keys(), ...this.known.skipped()]);
      const pick = candidates(this.known.claimable(), this.known.leases, now, busy, this.deps.leaseMs)[0];
      if (!pick) return took;
      const seen = { task: this.known.remoteTask(pick.id), branch: this.known.remoteBranch(pick.id) };
      const r = await claimTask(this.deps, pick, seen, this.o.agent).catch((e: unknown) => this.skip(pick.id, e));
      if (!r) continue;
      if (r.kind === 'claimed') {
        took = true;
        this.known.set(r.view);
        this.known.tips.set(leaseRef(pick.id), r.claim.lease);
        this.track(pick.id, r.claim.run);
        this.event('claimed', { task: pick.id, run: r.claim.run, detail: pick.kind, ms: r.ms, push_ms: r.push_ms });
      } else {
        if (r.kind === 'released')
          this.event('released', { task: pick.id, run: pick.lease?.doc?.run ?? null, detail: r.reason });
        else races++;
        // Another worker won (or the takeover changed the task): fetch, and pick again.
        await this.pull();
      }
    }
    return took;
  }

  /**
   * A task this worker cannot run as it stands (its branch is not here, its data is invalid): skipped, with
   * a warning, until its tip moves. Anything else (the agent's program missing) stops the worker.
   */
  private skip(id: string, e: unknown): null {
    if (!(e instanceof LazyError) || (e.exitCode !== EXIT.notAllowed && e.exitCode !== EXIT.invalidData)) throw e;
    this.app.io.warn(`task ${id} skipped: ${e.message}`);
    this.known.skip(id);
    return null;
  }

  private pull(): Promise<void> {
    // A pull already under way serves both loops: its tips are as fresh as a second one's.
    this.pulling ??= this.pullOnce().finally(() => (this.pulling = null));
    return this.pulling;
  }

  private async pullOnce(): Promise<void> {
    // Only claims made before the fetch are judged by it: one pushed meanwhile is not in its tips.
    const before = new Set([...this.running.values()].map((r) => r.run));
    await this.merge();
    this.namePinned();
    for (const r of [...this.running.values()]) {
      const c = readClaim(this.app.repo.lazyDir, r.task);
      if (r.releasing || !c || !before.has(r.run)) continue;
      // Still ours while the remote holds the lease we last pushed, or a later one naming this run (its
      // supervisor renewed it since the fetch); a lease gone or naming another run was taken over.
      const tip = this.known.tips.get(leaseRef(r.task));
      if (tip !== c.lease && this.known.leases.get(r.task)?.doc?.run !== r.run) {
        await this.lose(r, c, true);
        continue;
      }
      const task_tip = this.known.remoteTask(r.task) ?? c.task_tip;
      const branch_tip = this.known.remoteBranch(r.task);
      // Written only when the remote moved: a pull every few seconds need not rewrite every claim.
      if (task_tip !== c.task_tip || branch_tip !== c.branch_tip)
        saveClaim(this.app.repo.lazyDir, { ...c, task_tip, branch_tip });
    }
  }

  /** Fetches and merges the remote's tasks, and what is known of them. */
  private async merge(): Promise<void> {
    const { tips, rejected } = await pull(syncDeps(this.app, false), this.deps.remote);
    await this.known.refresh(
      tips,
      rejected.map((x) => x.id),
    );
  }

  /** Names, once each, the working tasks whose lease no worker can renew or take over: only a person can. */
  private namePinned(): void {
    for (const p of pinnedTasks(this.known.all(), this.known.leases, this.deps.now(), this.deps.leaseMs)) {
      if (this.pinned.has(p.id)) continue;
      this.pinned.add(p.id);
      this.app.io.warn(
        `task ${p.id} is held by a lease no worker can take over (${p.why}); lazy stop ${p.id} --force breaks it`,
      );
    }
  }

  /** Per running claim: record what a dead supervisor left (reconcile), release an ended turn, renew a due lease. */
  private async tick(): Promise<void> {
    if (this.running.size === 0) return;
    await reconcileNow(this.app);
    for (const r of [...this.running.values()]) {
      const c = readClaim(this.app.repo.lazyDir, r.task);
      if (!c || c.run !== r.run) {
        this.running.delete(r.task); // released or lost already (a pull found it)
        continue;
      }
      if (this.stopping === 'now' && !r.stopping) await this.stopTurn(r);
      try {
        if (await this.ended(c)) await this.finish(r, c);
        else if ((await renewDue(this.deps, r.task, r.run)) === 'lost') await this.lose(r, c);
      } catch (e) {
        // The lease's lock held long (its supervisor's renewal push hanging): the next tick tries again.
        if (!(e instanceof LazyError) || e.code !== 'busy') throw e;
      }
    }
  }

  private async ended(c: ClaimState): Promise<boolean> {
    if (!readOutcome(this.app.repo.lazyDir, c.run)) return endAbandoned(this.deps, c);
    const v = await this.app.store.view(c.task);
    return v.current_run !== c.run || v.turns.some((t) => t.run === c.run && t.role === 'agent');
  }

  private async finish(r: Running, c: ClaimState): Promise<void> {
    r.releasing = true;
    let out;
    try {
      out = await releaseHeld(this.deps, c.task, c.run);
    } finally {
      r.releasing = false;
    }
    // Released already, by the run's supervisor while this worker was gone (a worker started again).
    if (out.kind === 'gone') {
      this.running.delete(r.task);
      const v = await this.app.store.view(r.task);
      return this.event('finished', { task: r.task, run: r.run, detail: `${v.status} (released by its supervisor)` });
    }
    if (out.kind === 'lost') return this.lose(r, c);
    if (out.kind === 'behind') {
      if (++r.behind > MAX_BEHIND)
        throw pushRejected(`task ${r.task}: the remote kept moving (${out.refs.join(', ')}); its claim is kept`, {
          task: r.task,
          refs: out.refs,
        });
      return this.pull();
    }
    this.running.delete(r.task);
    const v = await this.app.store.view(r.task);
    const note = out.branch_skipped ? ` (${out.branch_skipped})` : '';
    this.event('finished', { task: r.task, run: r.run, detail: `${v.status}${note}` });
  }

  /** A refused push or a lease the remote no longer holds: the turn stops here without an outcome. */
  private async lose(r: Running, c: ClaimState, pulled = false): Promise<void> {
    if (!this.running.delete(r.task)) return; // the other loop got there first
    await endLost(this.deps, c);
    // The pull that judged it may have merged before endLost reset the task, or lost its race with this clone's own
    // reconcile writing the dead run's end (its task then left for the next pull): merge again, so the clone ends
    // where the remote is.
    if (pulled)
      await this.merge().catch(() => {}); // a remote gone meanwhile: the next pull merges it
    else {
      await this.pulling?.catch(() => {}); // one under way may have merged before the reset: its failure is its own
      await this.pull();
    }
    const by = takenBy(await this.app.store.view(r.task), r.run) ?? 'another worker';
    const detail = `claim of ${r.task} lost: lease taken over by ${by}`;
    this.event('lost', { task: r.task, run: r.run, detail });
  }

  /** --now (or a second signal): stop the turn as lazy stop does; its outcome is then released like any other. */
  private async stopTurn(r: Running): Promise<void> {
    r.stopping = true;
    const v = await this.app.store.view(r.task);
    if (v.status !== 'working' || v.current_run !== r.run) return;
    const { stopTask } = await import('../stop/index.js');
    await stopTask(this.app, r.task);
  }
}
/** The worker that took the task over from `run`: the host of the first claim after the takeover entry. */
function takenBy(v: TaskView, run: string): string | null {
  const at = v.changelog.findIndex((c) => leaseExpiredRun(c) === run);
  if (at < 0) return null;
  return v.changelog.slice(at + 1).find((c) => c.status === 'working' && !c.set_aside)?.host ?? null;
}
