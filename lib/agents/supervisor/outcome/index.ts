import type { Store } from '../../../store/store.js';
import type { Draft } from '../../../store/draft.js';
import { parkStatus } from '../../../model/park.js';
import type { Json } from '../../../core/json.js';
import type { Outcome } from './types.js';
import type { RunRecord } from '../../runs.js';
import type { TurnView } from '../../../model/fold.js';
import { lastCumulative, usageSince } from '../../../model/usage.js';
import { fitOutcome } from '../fit.js';
import { leftBefore, roundLabel, roundsOf } from '../../../model/rounds.js';
import { carriedDetails } from '../../../model/details.js';
import { endRoundSession } from '../../rounds.js';

// Records a run's outcome in the task ref. The supervisor calls this when the agent
// ends; reconcile calls it for a supervisor that died after writing outcome.json.
// Invariant: a run's outcome is recorded exactly once, identified by its run id, and is
// never taken for another run's.

const TURN_KIND = {
  completed: 'result',
  decision_required: 'question',
  blocked: 'question',
  failed: 'error',
  interrupted: 'error',
} as const;

export function outcomeText(o: Outcome): string {
  if (o.kind === 'decision_required' || o.kind === 'blocked') return o.question ?? o.summary;
  if (o.kind === 'failed') return `${o.failure?.class ?? 'failure'}: ${o.failure?.reason ?? o.summary}`;
  if (o.kind === 'interrupted' && o.interrupt?.not_before && o.failure)
    return `interrupted: ${o.interrupt.reason} (the agent said: ${o.failure.reason})`;
  if (o.kind === 'interrupted') return `interrupted: ${o.interrupt?.reason ?? o.summary}`;
  return o.summary;
}

function details(o: Outcome, run: RunRecord, turns: readonly TurnView[]): { [k: string]: Json } {
  // A thread's cumulative report becomes this turn's share: the difference from the session's last turn.
  const usage = o.usage_cumulative
    ? usageSince(o.usage_cumulative, lastCumulative(turns, o.agent_session_id))
    : o.usage;
  return JSON.parse(
    JSON.stringify({
      outcome: o.kind,
      mode: run.kind,
      agent: run.agent.name,
      model: run.model,
      attempts: o.attempts,
      summary: o.summary,
      question: o.question,
      risks: o.risks,
      commands: o.commands,
      failure_class: o.failure?.class,
      failure_reason: o.failure?.reason,
      exit_code: o.interrupt?.exit_code,
      signal: o.interrupt?.signal,
      agent_session_id: o.agent_session_id,
      usage,
      usage_cumulative: o.usage_cumulative,
      cost_usd: o.cost_usd,
      waited_seconds: o.waited_seconds || undefined,
      review: o.review,
      upstream: o.upstream,
      set_aside: o.set_aside,
    }),
  ) as { [k: string]: Json };
}

/** Applies the outcome to a draft of the task; a no-op when it is already recorded. */
export function applyOutcome(d: Draft, run: RunRecord, o: Outcome): void {
  if (d.view.turns.some((t) => t.run === run.id && t.role === 'agent')) return;
  o = fitOutcome(o, outcomeText); // an agent's report is cut to fit, never refused: the turn must be recorded
  const normal = o.kind === 'completed' || o.kind === 'decision_required' || o.kind === 'blocked';
  const pending = new Set(d.view.pending_feedback);
  const consumes = normal ? run.consumes.filter((id) => pending.has(id)) : [];
  d.turn({
    role: 'agent',
    kind: TURN_KIND[o.kind],
    actor: 'agent',
    content: outcomeText(o),
    run: run.id,
    session: run.session,
    ...(consumes.length ? { consumes } : {}),
    details: details(o, run, d.view.turns),
  });
  for (const v of o.violations ?? []) d.violation({ file: v.file, run: run.id, commit: v.commit, base: v.base });
  d.summary = `${o.kind}: ${outcomeText(o).split('\n')[0]!.slice(0, 72)}`;
  const ours = d.view.current_run === run.id;
  // ask returns to where it was, unless its turn touched protected files after all.
  const park = () => (run.restore && !o.violations?.length ? run.restore : parkStatus(d.preview()));
  const reason = outcomeText(o).split('\n')[0]!.slice(0, 500);

  // A round's end is never a late outcome of interrupted work: a repair of an interrupted task ends there.
  if (d.status === 'interrupted' && ours && normal && !run.restore && d.view.changelog.at(-1)?.trigger !== 'stop') {
    // The interrupted-response sweep: an outcome that arrived after the task was marked
    // interrupted is still the run's real result.
    d.transition(
      'working',
      'stale_response',
      'a late outcome of the interrupted run arrived',
      { run: run.id },
      'system',
    );
  }
  if (d.status !== 'working' || !ours) return; // the task moved on: keep the turn, change nothing
  if (run.restore && run.kind !== 'ask') {
    returnFromRound(d, run, o);
  } else if (run.restore) {
    // ask is status-neutral: whatever happened, the task returns to where it was.
    d.transition(park(), 'turn_complete', `ask ${o.kind}: back to ${park()}`, { run: run.id }, 'system');
  } else if (normal) {
    d.transition(park(), 'turn_complete', reason, { run: run.id }, 'system');
  } else if (o.kind === 'failed') {
    d.transition(
      'blocked',
      'turn_failed',
      reason,
      { run: run.id, details: { failure_class: o.failure?.class ?? 'unknown', attempts: o.attempts } },
      'system',
    );
  } else {
    const i = o.interrupt!;
    // A usage limit is no crash (the breaker counts turn_crashed only) and asks nothing of a person.
    d.transition(
      'interrupted',
      i.user_stopped ? 'stop' : i.not_before ? 'usage_limit' : 'turn_crashed',
      i.reason,
      {
        run: run.id,
        host: run.host,
        details: {
          ...(i.not_before ? { not_before: i.not_before } : {}),
          reason: i.reason,
          exit_code: i.exit_code,
          signal: i.signal,
          logs: i.logs,
          at: i.at,
          ...(i.user_stopped ? { user_stopped: true } : {}),
          ...(i.claim_unkept ? { claim_unkept: true } : {}),
          ...(o.upstream?.status === 'conflict' ? { upstream_conflict: o.upstream.files } : {}),
        },
      },
      'system',
    );
  }
}

/**
 * A follow-up or repair ends where it started, however it ended (a crash or a stop included: recorded on the turn,
 * never resumed, never counted by the breaker), with the details of the move that had left the task there.
 */
function returnFromRound(d: Draft, run: RunRecord, o: Outcome): void {
  const v = d.view;
  const round = roundsOf(v).find((r) => r.run === run.id);
  const label = round ? roundLabel(round.kind, round.n) : run.kind.replace('_', '-');
  const before = leftBefore(v.changelog, run.id);
  d.op = label; // `lazy log` names the round's end as it names its start
  endRoundSession(d, run.restore!);
  d.transition(
    run.restore!,
    'round_end',
    `${label} ${o.kind}: back to ${run.restore}`,
    { run: run.id, ...(carriedDetails(before) ? { details: carriedDetails(before)! } : {}) },
    'system',
  );
}

export async function recordOutcome(store: Store, run: RunRecord, o: Outcome): Promise<void> {
  await store.mutate(run.task, 'turn', (d) => applyOutcome(d, run, o), { actor: 'system' });
}
