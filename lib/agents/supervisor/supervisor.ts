import { appendFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Store } from '../../store/store.js';
import type { Config } from '../../store/config/index.js';
import type { Repo } from '../../core/repo.js';
import type { Launcher } from '../../core/launcher.js';
import { startQueuedOrNote } from './queue.js';
import { selfIdentity } from '../../core/proc.js';
import { mergeUpstream, type MergeResult } from '../../workspace/worktree.js';
import { ADAPTERS } from '../adapters/registry.js';
import type { Adapter, McpServer, StreamState } from '../adapters/adapter.js';
import type { Classified, FailureClass } from '../adapters/taxonomy.js';
import { readEnvelope, type Envelope } from '../adapters/envelope.js';
import { mergeCommands } from '../adapters/commands.js';
import { decide, DEFAULT_RETRY, usageWait, type Attempt, type RetryConfig } from './retry.js';
import { retryRecorder, sleepRetrying, waitForUsage } from './waits.js';
import type { Outcome, OutcomeCommon } from './outcome/types.js';
import { recordOutcome } from './outcome/index.js';
import { setAsideAskLeftovers } from './ask-end.js';
import { settleSuperseded } from './superseded.js';
import {
  heartbeat,
  logTail,
  readAgentIdentity,
  readRun,
  runDir,
  runFiles,
  touch,
  writeOutcome,
  writeRun,
  type RunRecord,
} from '../runs.js';
import { clearActive } from '../../store/markers.js';
import { waitedSeconds } from '../substate.js';
import { resultPathOf } from '../launch.js';
import { runAgentOnce, type AttemptResult } from './attempt.js';
import { finishWork, withViolations, type Finished } from './finish.js';
import { readClaimStop, writeClaimStop } from './claim-stop.js';
import { terminateVerified } from './kill.js';
import { commandEnv, wireMcp } from '../mcp-wiring.js';
import { now, nowIso } from '../../core/clock.js';

// The per-turn supervisor (`lazy __supervise <run>`): a short-lived detached process that
// runs the agent, keeps a heartbeat and a log, retries transient failures inside the
// turn, and records the outcome. It is the only process that waits on the agent.

export interface SuperviseContext {
  lazyDir: string;
  store: Store;
  config: Config;
  repo: Repo;
  launcher: Launcher;
  /** Where a supervisor that cannot start says why (its log file, through the port). */
  warn(message: string): void;
  /** A fleet run's claim, held while its agent runs (lib/fleet/keeper.ts, wired by the command). */
  keepClaim?(
    rec: RunRecord,
    onUnkept: (u: Unkept) => Promise<void>,
    note: (m: string) => void,
  ): { end(): Promise<void>; release(): Promise<string | null> };
}

/** Why a claim could not be kept (lib/fleet/keeper.ts): `graceMs` is how long its agent may take to go. */
export interface Unkept {
  reason: string;
  lost: boolean;
  graceMs: number;
}

export async function supervise(ctx: SuperviseContext, runId: string): Promise<number> {
  const rec = readRun(ctx.lazyDir, runId);
  if (!rec) {
    ctx.warn(`no run ${runId}`);
    return 1;
  }
  const files = runFiles(runDir(ctx.lazyDir, runId));
  rec.supervisor = selfIdentity();
  writeRun(ctx.lazyDir, rec);
  const note = (msg: string) => appendFileSync(files.log, `[lazy ${nowIso()}] ${msg}\n`);
  touch(files.heartbeat);
  // A reconcile that judged this run dead may already have moved on; never run a
  // second agent in the same worktree.
  const v = await ctx.store.view(rec.task);
  if (v.status !== 'working' || v.current_run !== rec.id) {
    const why = `the task is ${v.status} with run ${v.current_run ?? 'none'}`;
    note(`${why}; this run was superseded and will not start`);
    await settleSuperseded(ctx.lazyDir, ctx.store, rec, why);
    return 0;
  }
  const beating = new AbortController();
  void heartbeat(files.heartbeat, beating.signal);
  const keeping = rec.fleet ? ctx.keepClaim?.(rec, (u) => claimUnkept(ctx, rec, u, note), note) : undefined;
  try {
    const ended = await runTurn(ctx, rec, note).finally(() => keeping?.end());
    const lost = readClaimStop(files.stop);
    if (lost?.lost) {
      // Another worker holds the task: this run records nothing (its worker drops what it committed).
      note(`claim lost (${lost.claim}): no outcome recorded`);
      clearActive(ctx.lazyDir, rec.task, rec.id);
      return 0;
    }
    const outcome = await setAsideAskLeftovers(ctx.store, rec, await withViolations(ctx, rec, ended, note), note);
    writeOutcome(ctx.lazyDir, outcome);
    note(`outcome: ${outcome.kind}${outcome.failure ? ` (${outcome.failure.class})` : ''}`);
    await recordOutcome(ctx.store, rec, outcome);
    // A fleet run whose worker is gone: pushed from here, or the turn's work would be lost with its worker.
    const released = await keeping?.release();
    if (released) note(released);
    // A crash keeps the marker: the next command's reconcile decides on auto-resume (never for an ask or a round).
    // Feedback queued during this turn starts the next one (only once the task is parked
    // blocked), while the marker still stands: wait sees one piece of work throughout.
    if (outcome.kind !== 'interrupted') await startQueuedOrNote(ctx, rec.task, note);
    // A usage limit's wait is the fleet queue's (schedule.not_before), never reconcile's to resume.
    const left = outcome.interrupt?.user_stopped || outcome.interrupt?.not_before;
    if (outcome.kind !== 'interrupted' || left || rec.restore) clearActive(ctx.lazyDir, rec.task, rec.id);
    return 0;
  } finally {
    beating.abort();
  }
}

/** The claim cannot be kept: the agent is told to stop, and its group is ended before the lease could lapse. */
async function claimUnkept(ctx: SuperviseContext, rec: RunRecord, u: Unkept, note: (m: string) => void) {
  note(`the claim cannot be kept: ${u.reason}; stopping the agent`);
  const stop = runFiles(runDir(ctx.lazyDir, rec.id)).stop;
  writeClaimStop(stop, { claim: u.reason, lost: u.lost });
  const grace = Math.min(ctx.config.stop_grace_ms ?? 10_000, u.graceMs);
  await terminateVerified(readAgentIdentity(ctx.lazyDir, rec.id), grace);
}

function retryConfig(c: Config): RetryConfig {
  return {
    baseMs: c.retry_base_ms ?? DEFAULT_RETRY.baseMs,
    transientMax: c.retry_transient_max ?? DEFAULT_RETRY.transientMax,
    unreachableMax: c.retry_unreachable_max ?? DEFAULT_RETRY.unreachableMax,
    crashWindowMs: c.crash_window_ms ?? DEFAULT_RETRY.crashWindowMs,
    usageRecheckMs: c.usage_limit_recheck_ms ?? DEFAULT_RETRY.usageRecheckMs,
    usageMaxWaitMs: c.usage_limit_max_wait_ms ?? DEFAULT_RETRY.usageMaxWaitMs,
  };
}

/** What a turn fixes before its first attempt; every attempt reads it, none changes it. */
interface Turn {
  ctx: SuperviseContext;
  rec: RunRecord;
  files: ReturnType<typeof runFiles>;
  adapter: Adapter;
  cfg: RetryConfig;
  prompt: string;
  resultPath: string;
  upstream: MergeResult | undefined;
  note: (m: string) => void;
  /** lazy's MCP server bound to this run; undefined when config `mcp` is false. */
  mcp: McpServer | undefined;
}

/** What one attempt decides: the turn ends with an outcome, or the agent is launched again (and why). */
type Step =
  { end: Outcome } | { again: 'fresh_session' } | { again: 'usage_reset' } | { again: 'retry'; failed: Attempt };

async function runTurn(ctx: SuperviseContext, rec: RunRecord, note: (m: string) => void): Promise<Outcome> {
  const turn = await prepareTurn(ctx, rec, note);
  const history: Attempt[] = [];
  let sessionId = rec.agent_session_id;
  let ran: StreamState['commands'];
  // Every attempt ends in a Step; only `end` leaves. Failures are bounded by the retry ladder
  // (decide), usage waits by their reset time or a stop.
  for (let attempt = 1; ; attempt++) {
    const launched = await launchAttempt(turn, attempt, sessionId, ran);
    sessionId = launched.state.sessionId || sessionId;
    ran = launched.state.commands;
    const step = await judgeAttempt(turn, launched, commonOf(turn, attempt, sessionId, launched.state), history);
    if ('end' in step) return step.end;
    if (step.again === 'fresh_session') sessionId = null;
    if (step.again === 'retry') history.push(step.failed);
  }
}

/** Merges the upstream the run asks for and builds the prompt, naming any conflict it left. */
async function prepareTurn(ctx: SuperviseContext, rec: RunRecord, note: (m: string) => void): Promise<Turn> {
  let upstream: MergeResult | undefined;
  if (rec.merge_upstream) {
    upstream = await mergeUpstream(rec.worktree, rec.merge_upstream);
    note(`upstream: ${upstream.detail}${upstream.files.length ? ` (${upstream.files.join(', ')})` : ''}`);
  }
  const files = runFiles(runDir(ctx.lazyDir, rec.id));
  let prompt = readFileSync(files.prompt, 'utf8');
  if (upstream?.status === 'conflict') {
    prompt =
      `Merging ${rec.merge_upstream} into your branch produced conflicts in: ${upstream.files.join(', ')}. ` +
      `Resolve them and commit the merge before anything else.\n\n${prompt}`;
  }
  const resultPath = resultPathOf(rec.worktree, rec.id);
  mkdirSync(dirname(resultPath), { recursive: true });
  const adapter = ADAPTERS[rec.agent.adapter];
  const mcp =
    ctx.config.mcp === false
      ? undefined
      : wireMcp({ lazyDir: ctx.lazyDir, repoTop: ctx.repo.top, cliPath: ctx.launcher.cliPath, run: rec.id });
  return { ctx, rec, files, adapter, cfg: retryConfig(ctx.config), prompt, resultPath, upstream, note, mcp };
}

interface Launched {
  r: AttemptResult;
  state: StreamState;
}

/**
 * One launch of the agent; a session it names is kept on disk for the next turn. The commands
 * earlier attempts of the turn ran stay in its record: they ran in the worktree all the same.
 */
async function launchAttempt(
  t: Turn,
  attempt: number,
  sessionId: string | null,
  ran: StreamState['commands'],
): Promise<Launched> {
  const { rec, files } = t;
  rmSync(t.resultPath, { force: true });
  const state: StreamState = ran ? { commands: [...ran] } : {};
  const resuming = sessionId ? ` resuming session ${sessionId}` : '';
  t.note(`attempt ${attempt}: ${rec.agent.name} (${rec.agent.adapter})${resuming}`);
  const r = await runAgentOnce({
    adapter: t.adapter,
    spec: rec.agent,
    input: { prompt: t.prompt, sessionId, mode: rec.kind === 'ask' ? 'ask' : 'work', mcp: t.mcp, model: rec.model },
    state,
    cwd: rec.worktree,
    logPath: files.log,
    agentFile: files.agent,
    stopFile: files.stop,
    attempt,
    env: {
      LAZY_TASK_ID: rec.task,
      LAZY_TURN: String(rec.turn),
      LAZY_RESULT: t.resultPath,
      LAZY_RUN: rec.id,
      // What the agent does through lazy (its CLI, its MCP server) is the agent's, whoever started the turn.
      LAZY_ACTOR: 'agent',
      // The CLIs take the server and the model in argv; a command agent's argv is the user's own: it finds them here.
      ...(rec.agent.adapter === 'command' ? commandEnv(t.mcp, rec.model) : {}),
    },
    watchdogMs: t.ctx.config.watchdog_ms ?? 30 * 60_000,
    graceMs: t.ctx.config.stop_grace_ms ?? 10_000,
    unreachableMax: t.cfg.unreachableMax,
    onRetry: retryRecorder(t.ctx.lazyDir, rec.id),
  });
  if (state.sessionId) writeFileSync(files.session, state.sessionId);
  return { r, state };
}

/** The decision per attempt result, in the order they are checked. */
async function judgeAttempt(t: Turn, { r, state }: Launched, common: Common, history: Attempt[]): Promise<Step> {
  const interrupt = (reason: string, userStopped?: true) => interruptedOutcome(t, common, r, reason, userStopped);
  if (r.stopped) return { end: stoppedEnd(t, interrupt) };
  if (r.watchdog) {
    const s = Math.round((t.ctx.config.watchdog_ms ?? 1_800_000) / 1000);
    return { end: interrupt(`no progress for ${s} s: the watchdog killed the agent`) };
  }
  if (r.spawnError) return { end: failedOutcome(common, 'fatal_config', r.spawnError, r.spawnError) };
  if (r.signal && !r.gaveUp) {
    const exit = r.exitCode !== null ? ` (exit ${r.exitCode})` : '';
    return { end: interrupt(`the agent was killed by ${r.signal}${exit}`) };
  }
  if (r.exitCode === 0 && !state.isError && !r.gaveUp) return { end: await normalEnd(t, common, { r, state }) };

  const failure = { exitCode: r.exitCode, signal: r.signal, state, tail: r.tail };
  if (common.agent_session_id && t.adapter.sessionMissing(failure)) {
    t.note(`session ${common.agent_session_id} is gone on this machine; starting a fresh session`);
    return { again: 'fresh_session' };
  }
  const c = r.gaveUp ? { cls: 'transient_unreachable' as const, reason: r.gaveUp } : t.adapter.classify(failure);
  if (c.cls === 'usage_limit') return usageLimited(t, common, c, interrupt);
  const failed: Attempt = { cls: c.cls, durationMs: r.durationMs };
  const d = decide([...history, failed], t.cfg);
  if (d.action === 'retry') {
    const s = Math.round(d.delayMs / 100) / 10;
    t.note(`attempt ${common.attempts} failed (${c.cls}): ${c.reason}; retrying in ${s} s`);
    const next = { cls: c.cls, reason: c.reason, next: common.attempts + 1 };
    if (await sleepRetrying(t.ctx.lazyDir, t.rec.id, next, d.delayMs, t.files.stop))
      return { end: stoppedEnd(t, interrupt) };
    return { again: 'retry', failed };
  }
  if (d.outcome === 'failed') return { end: failedOutcome(common, c.cls, c.reason, `${c.reason} (${d.why})`) };
  // The class travels to the resumed prompt.
  return { end: { ...interrupt(`${d.why}: ${c.reason}`), failure: { class: c.cls, reason: c.reason } } };
}

/** A spent usage window is no failure: wait for its reset, consuming no retry. */
async function usageLimited(
  t: Turn,
  common: Common,
  c: Classified,
  interrupt: (reason: string, userStopped?: true) => Outcome,
): Promise<Step> {
  const u = usageWait(c.resetAt, now(), t.cfg);
  if (u.action === 'stop') return { end: failedOutcome(common, c.cls, c.reason, `${c.reason} (${u.why})`) };
  const until = new Date(u.untilMs).toISOString();
  if (t.rec.fleet && u.named) return { end: backToQueue(t, common, c, until, interrupt) };
  const when = u.named ? ', when it resets' : ': no reset named, checking again then';
  t.note(`attempt ${common.attempts}: usage limit (${c.reason}); waiting until ${until}${when}; no retry is consumed`);
  const w = {
    kind: 'usage_limit' as const,
    run: t.rec.id,
    since: nowIso(),
    until,
    reset_named: u.named,
    reason: c.reason,
  };
  if (await waitForUsage(t.ctx.lazyDir, t.rec.task, w, t.files.stop)) return { end: stoppedEnd(t, interrupt) };
  return { again: 'usage_reset' };
}

/** A stop: a person's (lazy stop), or the run's claim's, which could not be kept (no crash, no person's stop). */
function stoppedEnd(t: Turn, interrupt: (reason: string, userStopped?: true) => Outcome): Outcome {
  const claim = readClaimStop(t.files.stop);
  if (!claim) return interrupt('stopped by the user', true);
  const o = interrupt(`the worker's claim could not be kept: ${claim.claim}`);
  return { ...o, interrupt: { ...o.interrupt!, claim_unkept: true } };
}

/**
 * A fleet run holds no worker through a named reset: the turn ends (trigger usage_limit) and the task
 * waits in the queue until then, its session kept and its pending feedback still pending.
 */
function backToQueue(
  t: Turn,
  common: Common,
  c: Classified,
  until: string,
  interrupt: (reason: string) => Outcome,
): Outcome {
  t.note(`attempt ${common.attempts}: usage limit (${c.reason}); the task waits in the queue until ${until}`);
  const o = interrupt(`usage limit of ${t.rec.agent.name}: waiting until ${until}`);
  return { ...o, interrupt: { ...o.interrupt!, not_before: until }, failure: { class: c.cls, reason: c.reason } };
}

/** A clean exit: the envelope the agent wrote decides the kind; without one the turn completed. */
async function normalEnd(t: Turn, common: Common, { r, state }: Launched): Promise<Outcome> {
  const env = readEnvelope(t.resultPath);
  rmSync(t.resultPath, { force: true });
  if (env.kind === 'malformed')
    return interruptedOutcome(t, common, r, `the agent broke its result contract: ${env.error}`);
  const finished = await finishWork(t.rec, t.note);
  // The review's commands run: what the agent's own stream showed, merged with what its envelope claims.
  const commands = mergeCommands(state.commands, env.kind === 'ok' ? env.envelope.commands : undefined);
  if (env.kind === 'ok') return { ...envelopeOutcome(common, finished, env.envelope), commands };
  const text = t.adapter.resultText(state, r.tail)?.trim() || '(the agent printed nothing)';
  return { ...completedOutcome(common, finished, text), commands };
}

// The outcome constructors. Optional fields a run lacks are left undefined (outcome.json omits them).

/** The fields every outcome of this attempt shares. */
type Common = OutcomeCommon;

function commonOf(t: Turn, attempt: number, sessionId: string | null, state: StreamState): Common {
  return {
    run: t.rec.id,
    task: t.rec.task,
    ended_at: nowIso(),
    attempts: attempt,
    agent_session_id: sessionId || undefined,
    usage: state.usage,
    usage_cumulative: state.usageCumulative,
    cost_usd: state.costUsd,
    waited_seconds: waitedSeconds(t.ctx.lazyDir, t.rec.id),
    upstream: t.upstream,
  };
}

/** An interruption carries the agent's exit, its signal and the log's last 50 lines. */
function interruptedOutcome(t: Turn, c: Common, r: AttemptResult, reason: string, userStopped?: true): Outcome {
  const logs = logTail(t.ctx.lazyDir, t.rec.id, 50);
  const at = nowIso();
  const interrupt = { reason, exit_code: r.exitCode, signal: r.signal, logs, at, user_stopped: userStopped };
  return { ...c, kind: 'interrupted', summary: reason, interrupt };
}

function failedOutcome(c: Common, cls: FailureClass, summary: string, reason: string): Outcome {
  return { ...c, kind: 'failed', summary, failure: { class: cls, reason } };
}

function completedOutcome(c: Common, f: Finished, summary: string): Outcome {
  return { ...c, review: f.review, risks: f.risks, kind: 'completed', summary };
}

function envelopeOutcome(c: Common, f: Finished, e: Envelope): Outcome {
  const risks = e.risks || f.risks ? [...(e.risks ?? []), ...(f.risks ?? [])] : undefined;
  return {
    ...c,
    review: f.review,
    kind: e.status,
    summary: e.summary,
    question: e.question || undefined,
    risks,
  };
}
