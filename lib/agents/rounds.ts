import type { Draft } from '../store/draft.js';
import { sanitizeLine } from '../core/sanitize.js';
import type { TaskView, TurnView } from '../model/fold.js';
import type { Status } from '../model/status.js';
import { failureClassOf, interruptOf, turnEndOf, turnMode } from '../model/details.js';
import { isRound, lastSettled, nextRound, roundLabel, type RoundKind } from '../model/rounds.js';
import { taskPrompt } from './prompt.js';
import { logTail } from './runs.js';
import type { TurnPlan } from './launch.js';
import type { RunRef } from './turns.js';

// The planners of a follow-up (one more piece of work on a complete or abandoned task) and a repair (one throwaway
// run in a blocked or interrupted task's worktree). Both record the person's text as the turn that starts the run
// (never as feedback: nothing is left pending for a work turn) and move the task into working by their own trigger;
// the run returns the task where it was however it ends (lib/agents/supervisor/outcome: round_end).

/** What a round's prompt needs besides the draft: the person's text and, for a repair, the failure's context. */
export interface RoundInput {
  kind: RoundKind;
  text: string;
  /** A repair's account of the failure (repairContext), or a follow-up's shell command line. */
  context?: string;
}

export function planRound(d: Draft, run: RunRef, r: RoundInput): TurnPlan {
  const before = d.status;
  const label = roundLabel(r.kind, nextRound(d.view, r.kind));
  d.turn({ role: 'human', kind: 'prompt', content: r.text, run: run.id, session: run.session });
  d.transition('working', r.kind, `${label}: ${sanitizeLine(r.text.split('\n')[0] ?? '').slice(0, 200)}`, {
    run: run.id,
    host: run.host,
  });
  // The round's name is its commit's operation: `lazy log` shows "lazy: follow-up 2 <id>".
  d.op = label;
  d.summary = label;
  const prompt = r.kind === 'follow_up' ? followUpPrompt(d, r, before) : repairPrompt(d, r);
  return { prompt, restore: before, consumes: [] };
}

function followUpPrompt(d: Draft, r: RoundInput, before: string): string {
  return [
    `This task is ${before}, and its verdict stands. ` +
      'A person asks for one more piece of work on its branch, in the current directory (a git worktree on the ' +
      'task branch); commit what you change:',
    r.text,
    taskPrompt(d.task ?? d.view),
  ].join('\n\n');
}

function repairPrompt(d: Draft, r: RoundInput): string {
  return [
    'This task is stuck, and the current directory (a git worktree on the task branch) may be what is wrong. ' +
      'A person asks you to repair it. This is a one-off run: it decides nothing about the task, and the task ' +
      'stays where it is afterwards, for the person to resume.',
    r.text,
    r.context ?? '',
    taskPrompt(d.task ?? d.view),
  ]
    .filter(Boolean)
    .join('\n\n');
}

/**
 * What a repair is told about the failure: why the task is blocked or interrupted, the last failed turn's exit code
 * and failure class, and the tail of that turn's log on this machine (lazy show's interrupt diagnostics, in words).
 */
export function repairContext(lazyDir: string, v: TaskView, lines = 30): string {
  const left = lastSettled(v) ?? null; // the move that left the task where it is, past any rounds since
  const turn = lastWork(v);
  const end = interruptOf(left);
  const exit = end.exit_code ?? turnEndOf(turn).exit_code;
  const signal = end.signal ?? turnEndOf(turn).signal;
  const facts = [
    `- status: ${v.status}`,
    `- reason: ${sanitizeLine(v.attention?.reason ?? left?.reason ?? 'unknown')}`,
    `- failure class: ${failureClassOf(turn) ?? 'unknown'}`,
    `- exit code: ${exit ?? 'unknown'}${signal ? ` (${signal})` : ''}`,
  ];
  const log = turn?.run ? logTail(lazyDir, turn.run, lines).map(sanitizeLine) : [];
  const tail = log.length ? `\n\nThe end of that turn's log:\n${log.join('\n')}` : '';
  return `What went wrong (the last failed turn):\n${facts.join('\n')}${tail}`;
}

/** The latest agent turn of the task's own work (not an ask, a follow-up or a repair). */
function lastWork(v: TaskView): TurnView | undefined {
  const rounds = new Set(v.changelog.filter((c) => c.run && isRound(c.trigger)).map((c) => c.run));
  return [...v.turns]
    .reverse()
    .find((t) => t.role === 'agent' && turnMode(t) !== 'ask' && !(t.run && rounds.has(t.run)));
}

/**
 * A follow-up opened a session on the branch of a task that had ended: it ends with the round, as it had (with the
 * outcome the task's last ended session had). Every path that ends a round (its recorded outcome, a stop that finds
 * nothing to record it) calls this before its round_end.
 */
export function endRoundSession(d: Draft, restore: Status): void {
  const v = d.view;
  if (!v.session || (restore !== 'complete' && restore !== 'abandoned')) return;
  const prior = [...v.sessions].reverse().find((s) => s.ended_at !== null);
  d.putSession({ ...v.session, ended_at: d.ctx.now, outcome: prior?.outcome ?? null });
}
