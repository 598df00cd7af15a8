import type { Repo } from '../core/repo.js';
import { liveness, thisHost, type ProcIdentity } from '../core/proc.js';
import { LazyError } from '../core/errors.js';
import type { Store } from '../store/store.js';
import type { Config } from '../store/config.js';
import { parkStatus } from '../model/park.js';
import { MAX_CONSECUTIVE_INTERRUPTIONS } from '../model/attention.js';
import { dirtyFiles, removeWorktree, worktreePath } from '../workspace/worktree.js';
import { deleteBranch, findAccepted } from '../workspace/merge.js';
import { taskBranch } from '../workspace/branch.js';
import { clearActive, listActive, logTail, readAgentIdentity, readOutcome, readRun, writeOutcome, type ActiveMarker, type RunRecord } from '../agents/runs.js';
import { recordOutcome } from '../agents/outcome.js';
import { launchTurn, upstreamOf } from '../agents/launch.js';
import { planResume } from '../agents/turns.js';
import { killGroupVerified } from '../agents/kill.js';
import type { Outcome } from '../agents/outcome-types.js';

// Reconcile runs at the start of every command. There is no daemon: this is where a
// finished turn is recorded if its supervisor could not, a dead supervisor is noticed,
// an orphaned agent is killed (only when its identity is verified), and a crashed turn
// is resumed. It reads only this machine's active markers, so it costs one readdir when
// nothing is running.

export interface ReconcileDeps { repo: Repo; store: Store; cliPath: string; config: () => Promise<Config> }
export interface ReconcileAction { task: string; action: string; detail: string }

export async function reconcile(deps: ReconcileDeps): Promise<ReconcileAction[]> {
  const markers = listActive(deps.repo.lazyDir);
  if (markers.length === 0) return [];
  const actions: ReconcileAction[] = [];
  for (const m of markers) {
    try {
      if (m.kind === 'turn') await reconcileRun(deps, m, actions);
      else if (m.kind === 'pair') await reconcilePair(deps, m, actions);
      else if (m.kind === 'accept') await reconcileAccept(deps, m, actions);
    } catch (e) {
      // One task's trouble (a busy lock, bad data) must not stop the command or the others.
      if (!(e instanceof LazyError)) throw e;
      actions.push({ task: m.task, action: 'skipped', detail: e.message });
    }
  }
  return actions;
}

const dead = (id: ProcIdentity | null | undefined) => !!id && liveness(id) === 'dead';

async function reconcileRun(deps: ReconcileDeps, m: ActiveMarker, actions: ReconcileAction[]): Promise<void> {
  const { lazyDir } = deps.repo;
  const rec = readRun(lazyDir, m.run);
  if (!rec) {
    // The launcher died before it wrote the run: nothing was committed for it.
    if (dead(m.owner)) { clearActive(lazyDir, m.task, m.run); actions.push({ task: m.task, action: 'cleared', detail: 'abandoned launch' }); }
    return;
  }
  let outcome = readOutcome(lazyDir, m.run);
  if (!outcome) {
    const owner = rec.supervisor ?? rec.launcher;
    if (!dead(owner)) return; // alive, or on another machine: not ours to judge
    if (!rec.supervisor && Date.now() - Date.parse(rec.created_at) < 5000) return; // a supervisor may still be starting
    const orphan = readAgentIdentity(lazyDir, m.run);
    if (orphan && killGroupVerified(orphan)) actions.push({ task: m.task, action: 'killed', detail: `orphaned agent pid ${orphan.pid}` });
    outcome = deadSupervisorOutcome(lazyDir, rec);
    writeOutcome(lazyDir, outcome);
  }
  await recordOutcome(deps.store, rec, outcome);
  actions.push({ task: m.task, action: 'recorded', detail: `${outcome.kind} outcome of run ${rec.id}` });
  const resumed = await maybeAutoResume(deps, m.task, actions);
  if (!resumed) clearActive(lazyDir, m.task, m.run);
}

function deadSupervisorOutcome(lazyDir: string, rec: RunRecord): Outcome {
  const now = new Date().toISOString();
  const reason = 'the supervisor died before the turn ended (no outcome was recorded)';
  return {
    run: rec.id, task: rec.task, kind: 'interrupted', ended_at: now, attempts: 0, summary: reason,
    interrupt: { reason, exit_code: null, signal: null, logs: logTail(lazyDir, rec.id, 50), at: now },
  };
}

/** Resumes a crashed task unless a human stopped it, the breaker tripped, or files await a decision. */
export async function maybeAutoResume(deps: ReconcileDeps, id: string, actions: ReconcileAction[]): Promise<boolean> {
  const v = await deps.store.view(id);
  if (v.status !== 'interrupted') return false;
  const last = v.changelog.filter((c) => !c.set_aside).at(-1);
  if (!last || last.trigger !== 'turn_crashed' || (last.host && last.host !== thisHost())) return false;
  if (v.consecutive_interruptions >= MAX_CONSECUTIVE_INTERRUPTIONS) {
    actions.push({ task: id, action: 'breaker', detail: `${v.consecutive_interruptions} crashes in a row: not resumed` });
    return false;
  }
  if (parkStatus(v) === 'conflict') return false;
  const config = await deps.config();
  const dirty = (await dirtyFiles(worktreePath(deps.repo, id, config.worktree_dir)).catch(() => [])).length > 0;
  try {
    const { run } = await launchTurn(deps.repo, deps.store, deps.cliPath, {
      id, op: 'auto-resume', actor: 'system', config,
      plan: (d, r) => planResume(d, r, { actor: 'system', trigger: 'auto_resume', dirty, upstream: upstreamOf(v, 'main') }),
    });
    actions.push({ task: id, action: 'auto-resumed', detail: `run ${run.id} (${dirty ? 'dirty' : 'clean'} worktree)` });
    return true;
  } catch (e) {
    if (e instanceof LazyError && e.exitCode === 4) return false; // someone else resumed it first
    throw e;
  }
}

async function reconcilePair(deps: ReconcileDeps, m: ActiveMarker, actions: ReconcileAction[]): Promise<void> {
  if (!dead(m.owner)) return;
  await deps.store.mutate(m.task, 'pair-end', (d) => {
    if (d.status !== 'pairing') return;
    d.turn({ role: 'system', kind: 'pair', actor: 'system', content: '[system] The pairing session ended without closing (its process is gone).' });
    d.transition(parkStatus(d.preview()), 'stale_pairing', 'stale pairing: the pairing process is gone', {}, 'system');
  }, { actor: 'system' });
  clearActive(deps.repo.lazyDir, m.task, m.run);
  actions.push({ task: m.task, action: 'unpaired', detail: 'stale pairing session' });
}

/**
 * An accept that died midway leaves the task in merging with no owner. If the target
 * already holds the task's squash commit (found by its trailer) the merge happened:
 * zombie → complete under the system actor. Otherwise the prior status comes back.
 */
async function reconcileAccept(deps: ReconcileDeps, m: ActiveMarker, actions: ReconcileAction[]): Promise<void> {
  if (!dead(m.owner)) return;
  const v = await deps.store.view(m.task);
  if (v.status === 'merging') {
    const entry = [...v.changelog].reverse().find((c) => !c.set_aside && c.status === 'merging');
    const target = String(entry?.details?.target ?? '');
    const restore = entry?.details?.restore === 'conflict' ? 'conflict' : 'blocked';
    const commit = target ? await findAccepted(deps.repo.cwd, target, m.task) : null;
    await deps.store.mutate(m.task, 'reconcile-accept', (d) => {
      if (d.status !== 'merging') return;
      if (commit) {
        d.transition('zombie', 'zombie', `the accept died after ${target} received ${commit.slice(0, 10)}`, {}, 'system');
        const s = d.view.session;
        if (s) d.putSession({ ...s, ended_at: d.ctx.now, outcome: 'accepted' });
        d.transition('complete', 'merge_done', `merged into ${target} as ${commit.slice(0, 10)}`, { details: { target, commit } }, 'system');
      } else {
        d.transition(restore, 'merge_abort', 'the accept died before the merge landed; restored', {}, 'system');
      }
    }, { actor: 'system' });
    if (commit) {
      const config = await deps.config();
      await removeWorktree(deps.repo, worktreePath(deps.repo, m.task, config.worktree_dir)).catch(() => false);
      await deleteBranch(deps.repo.cwd, taskBranch(m.task));
    }
    actions.push({ task: m.task, action: commit ? 'completed' : 'restored', detail: commit ? `stranded accept had merged ${commit.slice(0, 10)}` : `stranded accept restored to ${restore}` });
  }
  clearActive(deps.repo.lazyDir, m.task, m.run);
}
