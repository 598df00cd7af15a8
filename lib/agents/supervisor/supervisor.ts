import { appendFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Store } from '../../store/store.js';
import type { Config } from '../../store/config.js';
import type { Repo } from '../../core/repo.js';
import { startQueuedOrNote } from './queue.js';
import { selfIdentity } from '../../core/proc.js';
import { commitAll, headOf, mergeUpstream, type MergeResult } from '../../workspace/worktree.js';
import { branchDiff, branchViolations } from '../../workspace/review.js';
import { protectedPoints } from '../../model/fold.js';
import { ADAPTERS } from '../adapters/registry.js';
import type { StreamState } from '../adapters/adapter.js';
import { readEnvelope } from '../adapters/envelope.js';
import { decide, DEFAULT_RETRY, usageWait, type Attempt, type RetryConfig } from './retry.js';
import { sleepUnlessStopped, waitForUsage } from './waits.js';
import type { Outcome } from './outcome-types.js';
import { recordOutcome } from './outcome.js';
import { setAsideAskLeftovers } from './ask-end.js';
import { logTail, readRun, runDir, runFiles, touch, writeOutcome, writeRun, type RunRecord } from '../runs.js';
import { clearActive } from '../../store/markers.js';
import { resultPathOf } from '../launch.js';
import { runAgentOnce, type AttemptResult } from './attempt.js';

// The per-turn supervisor (`lazy __supervise <run>`): a short-lived detached process that
// runs the agent, keeps a heartbeat and a log, retries transient failures inside the
// turn, and records the outcome. It is the only process that waits on the agent.

export interface SuperviseContext {
  lazyDir: string;
  store: Store;
  config: Config;
  repo: Repo;
  cliPath: string;
  /** Where a supervisor that cannot start says why (its log file, through the port). */
  warn(message: string): void;
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
  const note = (msg: string) => appendFileSync(files.log, `[lazy ${new Date().toISOString()}] ${msg}\n`);
  touch(files.heartbeat);
  // A reconcile that judged this run dead may already have moved on; never run a
  // second agent in the same worktree.
  const v = await ctx.store.view(rec.task);
  if (v.status !== 'working' || v.current_run !== rec.id) {
    note(`the task is ${v.status} with run ${v.current_run ?? 'none'}; this run was superseded and will not start`);
    return 0;
  }
  const beat = setInterval(() => touch(files.heartbeat), 2000);
  try {
    const outcome = await setAsideAskLeftovers(
      ctx.store,
      rec,
      await withViolations(ctx, rec, await runTurn(ctx, rec, note), note),
      note,
    );
    writeOutcome(ctx.lazyDir, outcome);
    note(`outcome: ${outcome.kind}${outcome.failure ? ` (${outcome.failure.class})` : ''}`);
    await recordOutcome(ctx.store, rec, outcome);
    // A crash keeps the marker: the next command's reconcile decides on auto-resume (never for an ask).
    // Feedback queued during this turn starts the next one (only once the task is parked
    // blocked), while the marker still stands: wait sees one piece of work throughout.
    if (outcome.kind !== 'interrupted') await startQueuedOrNote(ctx, rec.task, note);
    if (outcome.kind !== 'interrupted' || outcome.interrupt?.user_stopped || rec.kind === 'ask')
      clearActive(ctx.lazyDir, rec.task, rec.id);
    return 0;
  } finally {
    clearInterval(beat);
  }
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

async function runTurn(ctx: SuperviseContext, rec: RunRecord, note: (m: string) => void): Promise<Outcome> {
  const files = runFiles(runDir(ctx.lazyDir, rec.id));
  const base = { run: rec.id, task: rec.task };
  let upstream: MergeResult | undefined;
  if (rec.merge_upstream) {
    upstream = await mergeUpstream(rec.worktree, rec.merge_upstream);
    note(`upstream: ${upstream.detail}${upstream.files.length ? ` (${upstream.files.join(', ')})` : ''}`);
  }
  let prompt = readFileSync(files.prompt, 'utf8');
  if (upstream?.status === 'conflict') {
    prompt = `Merging ${rec.merge_upstream} into your branch produced conflicts in: ${upstream.files.join(', ')}. Resolve them and commit the merge before anything else.\n\n${prompt}`;
  }
  const adapter = ADAPTERS[rec.agent.adapter];
  const cfg = retryConfig(ctx.config);
  const history: Attempt[] = [];
  let sessionId = rec.agent_session_id;
  const resultPath = resultPathOf(rec.worktree, rec.id);
  mkdirSync(dirname(resultPath), { recursive: true });

  for (let attempt = 1; ; attempt++) {
    rmSync(resultPath, { force: true });
    const state: StreamState = {};
    note(
      `attempt ${attempt}: ${rec.agent.name} (${rec.agent.adapter})${sessionId ? ` resuming session ${sessionId}` : ''}`,
    );
    const r: AttemptResult = await runAgentOnce({
      adapter,
      spec: rec.agent,
      input: { prompt, sessionId, mode: rec.kind === 'ask' ? 'ask' : 'work' },
      state,
      cwd: rec.worktree,
      logPath: files.log,
      agentFile: files.agent,
      stopFile: files.stop,
      attempt,
      env: { LAZY_TASK_ID: rec.task, LAZY_TURN: String(rec.turn), LAZY_RESULT: resultPath, LAZY_RUN: rec.id },
      watchdogMs: ctx.config.watchdog_ms ?? 30 * 60_000,
      graceMs: ctx.config.stop_grace_ms ?? 10_000,
      unreachableMax: cfg.unreachableMax,
    });
    if (state.sessionId) {
      sessionId = state.sessionId;
      writeFileSync(files.session, sessionId);
    }
    const common = {
      ...base,
      ended_at: new Date().toISOString(),
      attempts: attempt,
      ...(sessionId ? { agent_session_id: sessionId } : {}),
      ...(state.usage ? { usage: state.usage } : {}),
      ...(state.costUsd !== undefined ? { cost_usd: state.costUsd } : {}),
      ...(upstream ? { upstream } : {}),
    };
    const interrupted = (reason: string, extra: { user_stopped?: boolean } = {}): Outcome => ({
      ...common,
      kind: 'interrupted',
      summary: reason,
      interrupt: {
        reason,
        exit_code: r.exitCode,
        signal: r.signal,
        logs: logTail(ctx.lazyDir, rec.id, 50),
        at: new Date().toISOString(),
        ...extra,
      },
    });

    if (r.stopped) return interrupted('stopped by the user', { user_stopped: true });
    if (r.watchdog)
      return interrupted(
        `no progress for ${Math.round((ctx.config.watchdog_ms ?? 1_800_000) / 1000)} s: the watchdog killed the agent`,
      );
    if (r.spawnError)
      return {
        ...common,
        kind: 'failed',
        summary: r.spawnError,
        failure: { class: 'fatal_config', reason: r.spawnError },
      };
    if (r.signal && !r.gaveUp)
      return interrupted(`the agent was killed by ${r.signal}${r.exitCode !== null ? ` (exit ${r.exitCode})` : ''}`);

    if (r.exitCode === 0 && !state.isError && !r.gaveUp) {
      const env = readEnvelope(resultPath);
      rmSync(resultPath, { force: true });
      if (env.kind === 'malformed') return interrupted(`the agent broke its result contract: ${env.error}`);
      const finish = await finishWork(rec, note);
      if (env.kind === 'ok') {
        const e = env.envelope;
        return {
          ...common,
          ...finish,
          kind: e.status,
          summary: e.summary,
          ...(e.question ? { question: e.question } : {}),
          ...(e.risks || finish.risks ? { risks: [...(e.risks ?? []), ...(finish.risks ?? [])] } : {}),
          ...(e.commands ? { commands: e.commands } : {}),
        };
      }
      return {
        ...common,
        ...finish,
        kind: 'completed',
        summary: adapter.resultText(state, r.tail)?.trim() || '(the agent printed nothing)',
      };
    }

    const failure = { exitCode: r.exitCode, signal: r.signal, state, tail: r.tail };
    if (sessionId && adapter.sessionMissing(failure)) {
      note(`session ${sessionId} is gone on this machine; starting a fresh session`);
      sessionId = null;
      continue;
    }
    const c = r.gaveUp ? { cls: 'transient_unreachable' as const, reason: r.gaveUp } : adapter.classify(failure);
    if (c.cls === 'usage_limit') {
      // A spent usage window is no failure: wait for its reset, consuming no retry.
      const u = usageWait(c.resetAt, Date.now(), cfg);
      if (u.action === 'stop')
        return {
          ...common,
          kind: 'failed',
          summary: c.reason,
          failure: { class: c.cls, reason: `${c.reason} (${u.why})` },
        };
      const until = new Date(u.untilMs).toISOString();
      note(
        `attempt ${attempt}: usage limit (${c.reason}); waiting until ${until}${u.named ? ', when it resets' : ': no reset named, checking again then'}; no retry is consumed`,
      );
      const w = {
        kind: 'usage_limit' as const,
        run: rec.id,
        since: new Date().toISOString(),
        until,
        reset_named: u.named,
        reason: c.reason,
      };
      if (await waitForUsage(ctx.lazyDir, rec.task, w, files.stop))
        return interrupted('stopped by the user', { user_stopped: true });
      continue;
    }
    history.push({ cls: c.cls, durationMs: r.durationMs });
    const d = decide(history, cfg);
    if (d.action === 'retry') {
      note(`attempt ${attempt} failed (${c.cls}): ${c.reason}; retrying in ${Math.round(d.delayMs / 100) / 10} s`);
      if (await sleepUnlessStopped(d.delayMs, files.stop))
        return interrupted('stopped by the user', { user_stopped: true });
      continue;
    }
    if (d.outcome === 'failed')
      return {
        ...common,
        kind: 'failed',
        summary: c.reason,
        failure: { class: c.cls, reason: `${c.reason} (${d.why})` },
      };
    return { ...interrupted(`${d.why}: ${c.reason}`), failure: { class: c.cls, reason: c.reason } }; // the class travels to the resumed prompt
  }
}

/** After a normal end: commit what the agent left uncommitted, then collect the review facts. */
async function finishWork(rec: RunRecord, note: (m: string) => void): Promise<Partial<Outcome>> {
  // An ask is read-only: whatever it left behind is not committed for it.
  // A failed auto-commit (a stale index.lock, say) is a risk the review names, not a silent loss.
  const risks: string[] = [];
  const auto =
    rec.kind === 'ask'
      ? null
      : await commitAll(
          rec.worktree,
          `lazy: work of turn ${rec.turn} on task ${rec.task}\n\nLazy-Task: ${rec.task}\nLazy-Run: ${rec.id}\n`,
        ).catch((e: Error) => {
          risks.push(`lazy could not commit the work the agent left uncommitted: ${e.message}`);
          note(risks[0]!);
          return null;
        });
  if (auto) note(`committed the agent's uncommitted changes as ${auto.slice(0, 10)}`);
  const head = await headOf(rec.worktree);
  const diff = await branchDiff(rec.worktree, rec.base, head);
  return { review: { ...diff, auto_commit: auto }, ...(risks.length ? { risks } : {}) };
}

/**
 * Invariant: a turn that parks the task (every end but an interruption) re-derives the
 * protected-file violations from what the branch holds against its fork point, not from
 * what this turn did: commits of an earlier crashed or stopped turn count too.
 */
async function withViolations(
  ctx: SuperviseContext,
  rec: RunRecord,
  o: Outcome,
  note: (m: string) => void,
): Promise<Outcome> {
  const globs = ctx.config.protected ?? [];
  if (o.kind === 'interrupted' || !globs.length) return o;
  try {
    const head = o.review?.head ?? (await headOf(rec.worktree));
    const points = protectedPoints((await ctx.store.read(rec.task)).docs);
    const violations = await branchViolations(rec.worktree, rec.base, head, globs, points);
    return violations.length ? { ...o, violations } : o;
  } catch (e) {
    // Accept checks the squash against the protected globs again, so nothing lands unseen.
    note(`could not check protected files: ${(e as Error).message}`);
    return o;
  }
}
