import type { Draft } from '../store/draft.js';
import { sanitizeLine } from '../core/sanitize.js';
import type { Actor } from '../core/actor.js';
import type { Trigger } from '../model/table.js';
import type { TaskView, TurnView } from '../model/fold.js';
import { lastSettled } from '../model/rounds.js';
import { feedbackBlock, resumeContext, taskPrompt, type PreviousEnd } from './prompt.js';
import type { TurnPlan } from './launch.js';
import { notAllowed } from '../core/errors.js';
import { availableActions } from '../model/table.js';
import { failureClassOf, interruptOf } from '../model/details.js';

// The planners for every kind of turn: each records the turn that starts it (feedback
// before anything runs), moves the task into working stamped with the run, and builds
// the prompt from what is pending.

export interface RunRef {
  id: string;
  host: string;
  session: string;
  /** A fleet worker's claim: stamped on the move into working (lib/model/schedule.ts reads it). */
  claim?: { host: string; clone?: string; lease_until: string };
}

/** What the move into working records of its run (and of the worker's claim, when a worker launched it). */
const moveExtra = (run: RunRef) => ({
  run: run.id,
  host: run.host,
  ...(run.claim ? { details: { claim: { ...run.claim } } } : {}),
});

const pendingTurns = (d: Draft): TurnView[] => {
  const v = d.preview();
  return v.turns.filter((t) => t.feedback === 'pending');
};

/** The first turn: the task itself is the feedback the agent must act on. */
export function planStart(d: Draft, run: RunRef, trigger: 'start' | 'answer' = 'start'): TurnPlan {
  d.turn({
    role: 'human',
    kind: 'prompt',
    content: taskPrompt(d.task ?? d.view),
    feedback: 'pending',
    run: run.id,
    session: run.session,
  });
  d.transition('working', trigger, trigger === 'start' ? 'started' : 'answered: the first turn starts', moveExtra(run));
  return {
    prompt: feedbackBlock(
      pendingTurns(d),
      'Work on this task in the current directory (a git worktree on the task branch).',
    ),
  };
}

/** unblock and answer: human text goes in first, then the move into working. */
export function planFeedback(d: Draft, run: RunRef, trigger: 'unblock' | 'answer', text: string): TurnPlan {
  d.turn({
    role: 'human',
    kind: trigger === 'answer' ? 'answer' : 'feedback',
    content: text,
    feedback: 'pending',
    run: run.id,
    session: run.session,
  });
  d.transition('working', trigger, trigger === 'answer' ? 'answered' : 'feedback given', {
    run: run.id,
    host: run.host,
  });
  const lead =
    trigger === 'answer' ? 'The human answered your question:' : 'The human reviewed your work and asks for changes:';
  return { prompt: feedbackBlock(pendingTurns(d), lead), mergeUpstream: true };
}

/** The turn queued feedback starts when the turn it was given during has parked the task. */
export function planQueued(d: Draft, run: RunRef, queued: number): TurnPlan {
  if (d.status !== 'blocked' || queued === 0)
    throw notAllowed(
      'unblock',
      d.status,
      availableActions(d.view),
      'no queued feedback waits for this task (someone already started its next turn)',
    );
  d.transition('working', 'unblock', 'feedback queued during the last turn', { run: run.id, host: run.host }, 'system');
  const lead =
    'While your last turn was running, the human sent this feedback (written before they saw your last result):';
  return { prompt: feedbackBlock(pendingTurns(d), lead), mergeUpstream: true };
}

/** A resume after a crash, by the reconciler (system) or by `lazy resume` (human). */
export function planResume(
  d: Draft,
  run: RunRef,
  o: { actor: Actor; trigger: Extract<Trigger, 'auto_resume' | 'resume'>; dirty: boolean; upstream: string },
): TurnPlan {
  const auto = o.trigger === 'auto_resume';
  d.turn({
    role: 'system',
    kind: 'resume',
    actor: o.actor,
    run: run.id,
    session: run.session,
    content: auto ? '[system] Session interrupted and auto-resumed' : '[system] Resumed by hand after an interruption',
  });
  const prev = previousEnd(d.view);
  const n = d.view.consecutive_interruptions;
  // What interrupted it: a usage limit, or an unkept fleet claim, is no crash and counts none (n is 0 then).
  const why = lastSettled(d.view, 'interrupted')?.trigger; // past any repair since
  const reason = !auto
    ? 'resumed'
    : why === 'usage_limit'
      ? "auto-resume after the agent's usage limit"
      : n > 0
        ? `auto-resume after crash ${n} of 3`
        : 'auto-resume after an interruption';
  d.transition('working', o.trigger, reason, moveExtra(run), o.actor);
  const pending = pendingTurns(d);
  const context = resumeContext(o.dirty, o.dirty ? null : o.upstream, prev);
  const body = pending.length
    ? feedbackBlock(pending, 'Feedback that your interrupted turn had not acted on yet, verbatim:')
    : `Continue the task.\n\n${taskPrompt(d.task ?? d.view)}`;
  return { prompt: `${context}\n\n${body}`, mergeUpstream: !o.dirty };
}

/** How the interrupted task's last turn ended: its move into interrupted and the agent turn its run recorded. */
function previousEnd(v: TaskView): PreviousEnd {
  // The move into interrupted and its run, past any repair since (a repair's run is no turn of the task's work).
  const entry = lastSettled(v);
  const run = entry?.run ?? v.current_run;
  const agent = run ? [...v.turns].reverse().find((t) => t.run === run && t.role === 'agent') : undefined;
  const started = run ? v.turns.find((t) => t.run === run) : undefined;
  const cls = failureClassOf(agent);
  const end = interruptOf(entry);
  return {
    stopped: entry?.trigger === 'stop',
    usage_limit: entry?.trigger === 'usage_limit',
    turn: started?.sequence ?? null,
    cls: cls ?? 'unknown',
    // Agent output can reach the reason, and the prompt goes into argv.
    reason: sanitizeLine(entry?.reason ?? 'unknown'),
    exit_code: end.exit_code,
    signal: end.signal,
  };
}

/** ask: a read-only question; the task returns to its status when the answer is in. */
export function planAsk(d: Draft, run: RunRef, question: string): TurnPlan {
  const before = d.status as 'blocked' | 'conflict';
  // The question is not feedback: it goes to this turn's prompt only, so however the ask ends
  // it is never left pending for a work turn.
  d.turn({ role: 'human', kind: 'question', content: question, run: run.id, session: run.session });
  d.transition('working', 'ask', 'question asked', { run: run.id, host: run.host });
  return {
    prompt: `Answer this question about the task. Do not change any files.\n\n${question}`,
    restore: before,
    consumes: [],
  };
}
