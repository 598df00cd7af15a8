import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Repo } from '../core/repo.js';
import { selfIdentity, thisHost, type ProcIdentity } from '../core/proc.js';
import { madeHere, placeName, placeOf, type Place } from '../core/place.js';
import type { Launcher } from '../core/launcher.js';
import { randomId } from '../core/ids.js';
import { EXIT, LazyError, agentMissing, baseBranchMissing } from '../core/errors.js';
import type { FailureClass } from './adapters/taxonomy.js';
import type { Actor } from '../core/actor.js';
import type { Store } from '../store/store.js';
import type { Draft } from '../store/draft.js';
import type { Config } from '../store/config/index.js';
import type { TaskView } from '../model/fold.js';
import type { Status } from '../model/status.js';
import { assertBranchKept } from '../workspace/branch/index.js';
import { dirtyFiles, ensureWorktree, revParse, worktreePath } from '../workspace/worktree.js';
import { snapshotWorktree, type WorktreeSnapshot } from '../workspace/ask-snapshot.js';
import { resolveAgent } from './adapters/registry.js';
import type { AgentSpec } from './adapters/adapter.js';
import {
  commentsBlock,
  commandsBlock,
  freshSessionContext,
  upstreamSkippedNote,
  withEnvelope,
  type UpstreamSkipped,
} from './prompt.js';
import { runDir, writeRun, type RunKind, type RunRecord } from './runs.js';
import { clearActive, markActive } from '../store/markers.js';
import { resolveExecutable } from './adapters/which.js';
import { withLock } from '../core/lock.js';
import { watchTarget } from '../workspace/target-tips.js';
import { env } from '../core/env.js';
import { nowIso } from '../core/clock.js';
import { taskBranch } from '../core/names.js';
import { landingBranch } from '../model/landing.js';
import { agentSessionOf } from '../model/details.js';
import { assertBudget } from './budget.js';

// Launching a turn: prepare the worktree, mark the run active on this machine, commit
// the turn that starts it (feedback is recorded before anything runs), then start a
// supervisor through the port's launcher and return. Nothing waits for the agent.

export interface TurnPlan {
  /** The agent's prompt, built from the draft after the planner's own turns. */
  prompt: string;
  restore?: Status;
  /** Merge the task's upstream into its branch first (only on a clean worktree). */
  mergeUpstream?: boolean;
  /** Feedback turns the prompt delivers (default: everything pending). */
  consumes?: string[];
}

export interface LaunchInput {
  id: string;
  op: string;
  actor?: Actor;
  kind?: RunKind;
  agent?: string;
  /** The model this launch names (start --model); else the task's, else the agent's configured one. */
  model?: string;
  config: Config;
  /** Adds the launching turn and the move into working; receives the run id to stamp. */
  plan(d: Draft, run: { id: string; host: string; session: string }): TurnPlan;
  /** A fleet worker's run (RunRecord.fleet). */
  fleet?: boolean;
  /** The agent to run, already resolved (a follow-up's shell command), instead of one named by config. */
  spec?: AgentSpec;
  /** false: no supervisor is spawned; the caller runs the turn itself and records its outcome (follow-up --command). */
  supervise?: false;
  /**
   * Runs after the move into working is committed and before the supervisor starts: a fleet
   * worker pushes its claim here. If it throws, nothing is spawned (the caller undoes the commit).
   */
  beforeSpawn?(view: TaskView, run: RunRecord): Promise<void>;
}

export interface Launched {
  view: TaskView;
  run: RunRecord;
  /** The upstream merge this turn asked for and did not get (the worktree was dirty). */
  upstream_skipped?: UpstreamSkipped;
}

export async function launchTurn(repo: Repo, store: Store, launcher: Launcher, input: LaunchInput): Promise<Launched> {
  // Under the task's lock from the first look to the spawned supervisor: two launches
  // of one task serialize, and the second is refused by the table, not by a git error.
  return withLock(repo.lazyDir, input.id, () => launchLocked(repo, store, launcher, input));
}

/** One launch under way: what its steps found, handed from one to the next. */
interface Launching {
  repo: Repo;
  input: LaunchInput;
  agent: AgentSpec;
  /** The model the agent is told to use; undefined leaves it to the CLI's default. */
  model: string | undefined;
  upstream: string;
  baseCommit: string;
  /** The task's worktree, and what in it is not committed. */
  path: string;
  dirtyList: string[];
  dirty: boolean;
  snapshot: WorktreeSnapshot | null | undefined;
  runId: string;
  host: string;
  self: ProcIdentity;
  /** Written inside the commit that moves the task into working. */
  rec?: RunRecord;
  skipped?: UpstreamSkipped;
}

async function launchLocked(repo: Repo, store: Store, launcher: Launcher, input: LaunchInput): Promise<Launched> {
  const before = await store.view(input.id);
  // A budget reached stops the launch before anything is prepared (never a turn under way: this is its start). A
  // launch with its own spec runs no agent (follow-up --command runs a shell command) and spends no tokens.
  if (!input.spec) await assertBudget(repo, store, input, before);
  const l = await prepareWorktree(repo, input, before);
  try {
    const { view } = await store.mutateUnlocked(input.id, input.op, (d) => planRun(l, d), { actor: input.actor });
    await input.beforeSpawn?.(view, l.rec!);
    if (input.supervise !== false) startSupervisor(repo, launcher, l.rec!);
    return { view, run: l.rec!, ...(l.skipped ? { upstream_skipped: l.skipped } : {}) };
  } catch (e) {
    clearActive(repo.lazyDir, input.id, l.runId);
    if (!l.rec?.supervisor) rmSync(runDir(repo.lazyDir, l.runId), { recursive: true, force: true });
    throw e;
  }
}

/** Refuses a missing agent program or base branch; then the task's worktree, on its branch, is made ready. */
async function prepareWorktree(repo: Repo, input: LaunchInput, before: TaskView): Promise<Launching> {
  const agent: AgentSpec =
    input.spec ?? resolveAgent(input.config, input.agent ?? before.session?.agent ?? before.agent);
  if (!resolveExecutable(agent.command[0]!, env().PATH)) {
    throw agentMissing(`the ${agent.name} agent's program '${agent.command[0]}' is not installed or not on PATH`, {
      agent: agent.name,
      program: agent.command[0],
    });
  }
  const upstream = landingBranch(before);
  const path = worktreePath(repo, input.id, input.config.worktree_dir);
  const baseCommit = await revParse(repo.cwd, upstream);
  if (!baseCommit)
    throw baseBranchMissing(`the branch this task builds on, '${upstream}', does not exist`, {
      branch: upstream,
    });
  watchTarget(repo, upstream, baseCommit);
  await assertBranchKept(repo, before, input.op);
  await ensureWorktree(repo, { path, branch: taskBranch(input.id), base: upstream });
  const dirtyList = await dirtyFiles(path);
  const dirty = dirtyList.length > 0;
  const snapshot = input.kind === 'ask' ? await snapshotWorktree(path) : undefined;

  const runId = randomId();
  const host = thisHost();
  const self = selfIdentity();
  const model = input.model ?? before.model ?? input.config.agents?.[agent.name]?.model;
  return { repo, input, agent, model, upstream, baseCommit, path, dirtyList, dirty, snapshot, runId, host, self };
}

/** Inside the commit that starts the turn: the session, the planner's turn, the active marker, the run and its prompt. */
function planRun(l: Launching, d: Draft): void {
  const { repo, input, agent, upstream, baseCommit, dirtyList, dirty, runId, host, self } = l;
  const session =
    d.view.session ??
    d.putSession({
      id: randomId(),
      agent: agent.name,
      branch: taskBranch(input.id),
      base: upstream,
      base_commit: baseCommit,
      started_at: d.ctx.now,
      ended_at: null,
      outcome: null,
    });
  // When the agent last worked on another host its session lives there: a new one here is told the task.
  const elsewhere = sessionHostElsewhere(d.view, placeOf(repo));
  const plan = input.plan(d, { id: runId, host, session: session.id });
  // Marked only once the planner accepted the move (under the lock) and before the
  // ref moves: a crash after the commit is found by reconcile, and a launch that
  // lost a race never touches the winner's marker.
  markActive(repo.lazyDir, {
    task: input.id,
    run: runId,
    kind: 'turn',
    since: nowIso(),
    owner: self,
  });
  const preview = d.preview();
  if (plan.mergeUpstream && dirty)
    l.skipped = {
      branch: upstream,
      reason: 'the task worktree has uncommitted changes',
      files: dirtyList.slice(0, 10),
      more: Math.max(0, dirtyList.length - 10),
    };
  const prompt = [
    elsewhere ? freshSessionContext(d.view, elsewhere, taskBranch(input.id)) : '',
    l.skipped ? upstreamSkippedNote(l.skipped) : '',
    plan.prompt,
    commentsBlock(preview),
    commandsBlock(preview),
  ]
    .filter(Boolean)
    .join('\n\n');
  l.rec = runRecord(l, d, { plan, session: session.id, preview, elsewhere });
  writeRun(repo.lazyDir, l.rec, withEnvelope(prompt, resultPathOf(l.path, runId)));
}

/** The run the supervisor will carry out, as the commit that starts it leaves the task. */
function runRecord(
  l: Launching,
  d: Draft,
  {
    plan,
    session,
    preview,
    elsewhere,
  }: { plan: TurnPlan; session: string; preview: TaskView; elsewhere: string | null },
): RunRecord {
  const { input, agent, model, path, upstream, dirty, snapshot, runId, host, self } = l;
  const launching = d.turns.at(-1);
  return {
    id: runId,
    task: input.id,
    kind: input.kind ?? 'work',
    turn: preview.turns.find((t) => t.id === launching?.id)?.sequence ?? preview.turns.length,
    session,
    agent,
    ...(model ? { model } : {}),
    agent_session_id: elsewhere ? null : safeSessionId(preview.agent_session_id),
    worktree: path,
    base: upstream,
    merge_upstream: plan.mergeUpstream && !dirty ? upstream : null,
    consumes: plan.consumes ?? preview.pending_feedback,
    restore: plan.restore ?? null,
    ...(snapshot !== undefined ? { snapshot } : {}),
    created_at: d.ctx.now,
    host,
    launcher: self,
    supervisor: null,
    ...(input.fleet ? { fleet: true } : {}),
  };
}

/** After the commit: the run's folder, then the supervisor through the port's launcher, each recorded in the run. */
function startSupervisor(repo: Repo, launcher: Launcher, rec: RunRecord): void {
  const dir = runDir(repo.lazyDir, rec.id);
  mkdirSync(dir, { recursive: true });
  // Recorded before the spawn: a launcher killed before this line (in a fleet claim's push, say) left no
  // supervisor that may still be starting, so the next command's reconcile settles its run at once.
  rec.spawned_at = nowIso();
  writeRun(repo.lazyDir, rec);
  rec.supervisor = launcher.supervise({ run: rec.id, top: repo.top, log: join(dir, 'supervisor.log') });
  writeRun(repo.lazyDir, rec);
}

/**
 * The failure class of a launch that cannot succeed as things stand (a missing agent
 * program, an undefined or untrusted agent, a deleted branch): a usage, external or
 * refusal error (the caller rules out a lost race first). A busy lock may succeed next time.
 */
export function launchFailureClass(e: unknown): FailureClass | null {
  return e instanceof LazyError && FATAL_LAUNCH.includes(e.exitCode) ? 'fatal_config' : null;
}
const FATAL_LAUNCH: number[] = [EXIT.usage, EXIT.external, EXIT.notAllowed];

/**
 * The other host the task's agent last worked on, when it was not `host`: the latest agent turn's run, or the run
 * that reported the session id a turn would resume (each run's move into working names its host).
 */
export function sessionHostElsewhere(v: Pick<TaskView, 'turns' | 'changelog'>, here: Place): string | null {
  const turns = [...v.turns].reverse();
  for (const t of [turns.find((x) => x.role === 'agent' && x.run), turns.find((x) => agentSessionOf(x) !== null)]) {
    const ran = t?.run ? v.changelog.find((c) => c.run === t.run && c.status === 'working') : null;
    if (ran?.host && !madeHere(ran, here)) return placeName(ran, here);
  }
  return null;
}

/** An agent session id comes from stored (possibly pulled) data and ends up in argv: only a plain token is used. */
const safeSessionId = (s: string | null) => (s && /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/.test(s) ? s : null);

export const resultPathOf = (worktree: string, run: string) => join(worktree, '.lazy', `result-${run}.json`);
