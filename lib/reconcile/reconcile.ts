import type { Repo } from '../core/repo.js';
import type { Launcher } from '../core/launcher.js';
import { liveness, type ProcIdentity } from '../core/proc.js';
import { madeHere, placeOf, type Place } from '../core/place.js';
import { LazyError } from '../core/errors.js';
import type { Store } from '../store/store.js';
import type { TaskView } from '../model/fold.js';
import type { Config } from '../store/config/index.js';
import { unattendedResume } from '../model/resume.js';
import { MAX_CONSECUTIVE_INTERRUPTIONS } from '../model/attention.js';
import { parkStatus } from '../model/park.js';
import { dirtyFiles, mergeInProgress, worktreePath } from '../workspace/worktree.js';
import { afterKill, recoverAccept } from './accept-recovery.js';
import { acceptStashes, stashAdvice } from '../workspace/stash.js';
import {
  logTail,
  readAgentIdentity,
  readOutcome,
  readRun,
  unreadOutcome,
  writeOutcomeOnce,
  type RunRecord,
} from '../agents/runs.js';
import { clearActive, listActive, type ActiveMarker } from '../store/markers.js';
import { recordOutcome } from '../agents/supervisor/outcome/index.js';
import { setAsideAskLeftovers } from '../agents/supervisor/ask-end.js';
import { launchFailureClass, launchTurn } from '../agents/launch.js';
import type { FailureClass } from '../agents/adapters/taxonomy.js';
import { planResume } from '../agents/turns.js';
import { startQueuedOrNote } from '../agents/supervisor/queue.js';
import { clearWaiting } from '../agents/supervisor/waits.js';
import { sweepDue } from '../workspace/target-tips.js';
import { sweepMerged } from './merged-sweep.js';
import { upstreamDue } from './upstream/due.js';
import type { ReconcileAction } from './action.js';
import { endPairing, terminateVerified } from '../agents/supervisor/kill.js';
import type { Outcome } from '../agents/supervisor/outcome/types.js';
import { now } from '../core/clock.js';
import { clearStaleLocks } from '../core/lock.js';
import { isTaskId } from '../core/ids.js';
import { deadOrSilent, LAUNCH_GRACE_MS, runGone, tookRun } from './dead-run.js';
import { landingBranch } from '../model/landing.js';

// Reconcile runs at the start of every command. There is no daemon: this is where a
// finished turn is recorded if its supervisor could not, a dead supervisor is noticed,
// an orphaned agent is killed (only when its identity is verified), and a crashed turn
// is resumed. It reads only this machine's active markers, so it costs one readdir when
// nothing is running.

export interface ReconcileDeps {
  repo: Repo;
  store: Store;
  launcher: Launcher;
  config: () => Promise<Config>;
}

export async function reconcile(
  deps: ReconcileDeps,
  o: { sweep?: boolean; upstream?: boolean } = {},
): Promise<ReconcileAction[]> {
  const actions: ReconcileAction[] = [];
  // First: a crashed turn on a branch merged by hand completes rather than auto-resumes.
  if (o.sweep ?? sweepDue(deps.repo)) {
    try {
      await sweepMerged(deps, actions);
    } catch (e) {
      if (!(e instanceof LazyError)) throw e;
      actions.push({ task: '-', action: 'skipped', detail: `merged-branch sweep: ${e.message}`, warn: true });
    }
  }
  // A submitted task merged or closed upstream (what the last fetch brought) is settled before anything resumes.
  if (o.upstream ?? upstreamDue(deps.repo)) {
    try {
      const { settleSubmitted } = await import('./upstream/index.js');
      await settleSubmitted(deps, actions);
    } catch (e) {
      if (!(e instanceof LazyError)) throw e;
      actions.push({ task: '-', action: 'skipped', detail: `upstream check: ${e.message}`, warn: true });
    }
  }
  // Locks whose holders are gone (a command SIGKILLed mid-write, a worker mid-claim): doctor's judgement too.
  for (const l of clearStaleLocks(deps.repo.lazyDir))
    actions.push({
      task: isTaskId(l.name) ? l.name : '-',
      action: 'unlocked',
      detail: `removed the stale ${l.name} lock`,
    });
  const markers = listActive(deps.repo.lazyDir);
  if (markers.length === 0) return actions;
  for (const m of markers) {
    try {
      if (m.kind === 'turn') await reconcileRun(deps, m, actions);
      else if (m.kind === 'pair') await reconcilePair(deps, m, actions);
      else if (m.kind === 'accept') await reconcileAccept(deps, m, actions);
    } catch (e) {
      // One task's trouble (a busy lock, bad data) must not stop the command or the others.
      if (!(e instanceof LazyError)) throw e;
      actions.push({ task: m.task, action: 'skipped', detail: e.message, warn: true });
    }
  }
  return actions;
}

const dead = (id: ProcIdentity | null | undefined) => !!id && liveness(id) === 'dead';

async function reconcileRun(deps: ReconcileDeps, m: ActiveMarker, actions: ReconcileAction[]): Promise<void> {
  const { lazyDir } = deps.repo;
  const rec = readRun(lazyDir, m.run);
  let outcome = rec ? readOutcome(lazyDir, m.run) : undefined;
  if (!rec || !outcome) {
    // Alive, a supervisor still starting, or another machine's (a claim mid-push lives): not ours to judge.
    if (!runGone(m, rec, deadOrSilent(lazyDir, rec))) return;
    // A launch killed before its commit (or before it wrote the run): nothing ran, and there is nothing to record.
    if (!rec || (!rec.supervisor && !tookRun(await deps.store.view(m.task), m.run))) {
      if (rec && now() - Date.parse(rec.created_at) < LAUNCH_GRACE_MS) return; // its commit may still land
      clearActive(lazyDir, m.task, m.run);
      actions.push({ task: m.task, action: 'cleared', detail: `abandoned launch of run ${m.run}` });
      return;
    }
    outcome = (await writeOutcomeOnce(lazyDir, m.run, () => settleDeadRun(deps, m, rec, actions))).outcome;
  }
  await recordOutcome(deps.store, rec, outcome);
  actions.push({ task: m.task, action: 'recorded', detail: `${outcome.kind} outcome of run ${rec.id}` });
  if (outcome.set_aside)
    actions.push({ task: m.task, action: 'set-aside', warn: true, detail: outcome.set_aside.note });
  // An ask, a follow-up or a repair is status-neutral: its end restored the task, and it is never resumed as work.
  const resumed = !rec.restore && (await maybeAutoResume(deps, m.task, actions));
  if (!resumed && outcome.kind !== 'interrupted') {
    const next = await startQueuedOrNote({ ...deps, config: await deps.config() }, m.task, () => undefined);
    if (next)
      actions.push({
        task: m.task,
        action: 'queued-feedback',
        detail: `run ${next.run.id} started with the feedback queued during run ${rec.id}`,
      });
  }
  if (!resumed) clearActive(lazyDir, m.task, m.run);
}

/** The outcome of a run whose supervisor died (made once, under the run's lock: writeOutcomeOnce). */
async function settleDeadRun(
  deps: ReconcileDeps,
  m: ActiveMarker,
  rec: RunRecord,
  actions: ReconcileAction[],
): Promise<Outcome> {
  const { lazyDir } = deps.repo;
  const orphan = readAgentIdentity(lazyDir, m.run);
  if (orphan && (await terminateVerified(orphan, 2000)).signal !== 'none')
    actions.push({ task: m.task, action: 'killed', detail: `orphaned agent pid ${orphan.pid}` });
  clearWaiting(lazyDir, m.task, m.run); // a supervisor killed during a usage-limit wait left its record
  return setAsideAskLeftovers(deps.store, rec, await deadSupervisorOutcome(lazyDir, rec), () => {});
}

async function deadSupervisorOutcome(lazyDir: string, rec: RunRecord): Promise<Outcome> {
  const reason = rec.supervisor
    ? 'the supervisor died before the turn ended (no outcome was recorded)'
    : 'the process that launched the turn died before it started the supervisor (the agent never ran)';
  // A supervisor that died during merge-and-fix leaves the merge in progress: held, like any merge-and-fix crash.
  const upstream = rec.merge_upstream
    ? await mergeInProgress(rec.worktree, rec.merge_upstream).catch(() => null)
    : null;
  return { ...unreadOutcome(rec, reason, logTail(lazyDir, rec.id, 50)), ...(upstream ? { upstream } : {}) };
}

/**
 * A crashed turn in this clone (`here`) that the next reconcile will resume (not stopped, breaker intact, nothing
 * to decide).
 */
export function willAutoResume(v: TaskView, here: Place): boolean {
  // A queued task's crash is the fleet's to resume (a worker claims it); a paused one waits for a person.
  if (v.schedule.queued || v.schedule.paused) return false;
  // Nothing runs an agent on a task without a criterion (its edit removed it mid-turn): resume's own guard.
  if (!v.acceptance.some((a) => a.trim())) return false;
  const last = unattendedResume(v);
  // Only a crash here: a fleet run's usage limit (usage_limit) waits for a worker or a person, before its reset and after.
  return !!last && last.trigger === 'turn_crashed' && madeHere(last, here);
}

/** Resumes a crashed task unless a human stopped it, the breaker tripped, or files await a decision. */
export async function maybeAutoResume(deps: ReconcileDeps, id: string, actions: ReconcileAction[]): Promise<boolean> {
  const v = await deps.store.view(id);
  if (!willAutoResume(v, placeOf(deps.repo))) {
    if (v.status === 'interrupted' && v.consecutive_interruptions >= MAX_CONSECUTIVE_INTERRUPTIONS)
      actions.push({
        task: id,
        action: 'breaker',
        detail: `${v.consecutive_interruptions} crashes in a row: not resumed`,
      });
    return false;
  }
  const config = await deps.config();
  const dirty = (await dirtyFiles(worktreePath(deps.repo, id, config.worktree_dir)).catch(() => [])).length > 0;
  try {
    const { run } = await launchTurn(deps.repo, deps.store, deps.launcher, {
      id,
      op: 'auto-resume',
      actor: 'system',
      config,
      plan: (d, r) => planResume(d, r, { actor: 'system', trigger: 'auto_resume', dirty, upstream: landingBranch(v) }),
    });
    actions.push({ task: id, action: 'auto-resumed', detail: `run ${run.id} (${dirty ? 'dirty' : 'clean'} worktree)` });
    return true;
  } catch (e) {
    // A budget reached (the daily cap on auto-resumes, the task's own): it is left blocked for a person, said once.
    if (e instanceof LazyError && e.details?.guard === 'budget') {
      actions.push({ task: id, action: 'blocked', warn: true, detail: e.message });
      return false;
    }
    // Refused by the table because someone else moved it first; any other refusal (a deleted branch) blocks it.
    if (e instanceof LazyError && e.exitCode === 4 && !willAutoResume(await deps.store.view(id), placeOf(deps.repo)))
      return false;
    const cls = launchFailureClass(e);
    if (!cls) throw e;
    await blockUnlaunchable(deps.store, id, cls, (e as LazyError).message, actions);
    return false;
  }
}

/**
 * Invariant: a crash the next command cannot resume is never silent; it blocks with failure attention and the reason.
 */
async function blockUnlaunchable(
  store: Store,
  id: string,
  cls: FailureClass,
  why: string,
  actions: ReconcileAction[],
): Promise<void> {
  const reason = `auto-resume could not start the agent: ${why}`;
  await store.mutate(
    id,
    'auto-resume',
    (d) => {
      if (d.status === 'interrupted')
        d.transition('blocked', 'turn_failed', reason, { details: { failure_class: cls } }, 'system');
    },
    { actor: 'system' },
  );
  actions.push({
    task: id,
    action: 'blocked',
    warn: true,
    detail: `${reason} (${cls}); blocked: fix it, then lazy unblock ${id} -m "..."`,
  });
}

async function reconcilePair(deps: ReconcileDeps, m: ActiveMarker, actions: ReconcileAction[]): Promise<void> {
  if (!dead(m.owner)) return;
  // What the session started (its shell, an editor) must not go on writing in the worktree.
  const ended = m.pair_sid ? await endPairing({ owner: m.owner, sid: m.pair_sid, run: m.run }, 2000) : null;
  if (ended?.pids.length)
    actions.push({ task: m.task, action: 'killed', detail: `the pairing session's pid ${ended.pids.join(', ')}` });
  await deps.store.mutate(
    m.task,
    'pair-end',
    (d) => {
      if (d.status !== 'pairing') return;
      d.turn({
        role: 'system',
        kind: 'pair',
        actor: 'system',
        content: '[system] The pairing session ended without closing (its process is gone).',
      });
      d.transition(
        parkStatus(d.preview()),
        'stale_pairing',
        'stale pairing: the pairing process is gone',
        {},
        'system',
      );
    },
    { actor: 'system' },
  );
  clearActive(deps.repo.lazyDir, m.task, m.run);
  actions.push({ task: m.task, action: 'unpaired', detail: 'stale pairing session' });
}

/** An accept whose process died: finished or rolled back by the rule of the step it died in (accept-recovery.ts). */
async function reconcileAccept(deps: ReconcileDeps, m: ActiveMarker, actions: ReconcileAction[]): Promise<void> {
  if (!dead(m.owner)) return;
  const rule = afterKill(m);
  const r = await recoverAccept(deps.repo, deps.store, deps.config, m.task, { locked: false, rule });
  if (r.outcome === 'completed')
    actions.push({ task: m.task, action: 'completed', detail: `a stopped accept had merged ${r.commit.slice(0, 10)}` });
  if (r.outcome === 'restored')
    actions.push({ task: m.task, action: 'restored', detail: `a stopped accept was rolled back to ${r.status}` });
  // Only a stash git still lists is reported: the accept may have restored it before it died.
  const kept = m.stash
    ? (await acceptStashes(deps.repo.cwd, deps.repo.commonDir)).find((s) => s.commit === m.stash)
    : undefined;
  if (kept)
    actions.push({
      task: m.task,
      action: 'stash',
      warn: true,
      detail: `the stopped accept kept uncommitted work of the target checkout in ${stashAdvice(kept)}`,
    });
  clearActive(deps.repo.lazyDir, m.task, m.run);
}
