import type { ChangeView, TurnView } from './views.js';
import type { Status } from './status.js';

// What kind of human attention a task needs, derived from its history. Only tasks
// that really wait for a person carry one; queued work, running turns and automatic
// recovery never do.

export type AttentionKind = 'review' | 'decision' | 'failure' | 'conflict' | 'interrupted' | 'merging';

export interface Attention {
  kind: AttentionKind;
  reason: string;
  since: string;
}

export const CLARIFY_QUESTION =
  'What observable condition will show this task is done? Your answer becomes an acceptance criterion.';

const firstLine = (s: string) => (s.trim().split('\n')[0] ?? '').slice(0, 200);

/** The breaker trips at this many crashes in a row. */
export const MAX_CONSECUTIVE_INTERRUPTIONS = 3;

export function attentionOf(
  status: Status,
  allApplied: readonly ChangeView[],
  allTurns: readonly TurnView[],
  crashes: number,
): Attention | null {
  // Invariant: an ask, a follow-up and a repair are status-neutral, so attention comes from the work around them,
  // never from them: a repaired blocked task still shows the failure it was blocked by.
  const asks = neutralRuns(allTurns, allApplied);
  const applied = allApplied.filter((c) => !c.run || !asks.has(c.run));
  const turns = workTurns(allTurns, allApplied);
  const last = applied.at(-1);
  if (!last) return null;
  const since = last.timestamp;
  switch (status) {
    case 'blocked': {
      if (last.trigger === 'turn_failed' || last.trigger === 'budget')
        return { kind: 'failure', reason: firstLine(last.reason), since };
      if (last.trigger === 'clarify') return { kind: 'decision', reason: CLARIFY_QUESTION, since };
      if (last.trigger === 'pr_closed') return { kind: 'review', reason: firstLine(last.reason), since };
      // A reopen's reason is what the person must look at until the next turn, not the accepted review.
      if (last.trigger === 'reopen') return { kind: 'review', reason: reopenReason(last.reason), since };
      const q = pendingQuestion(turns);
      if (q) return { kind: 'decision', reason: firstLine(q.content), since };
      // The latest work speaks: an agent turn or a pairing session, whichever came last.
      const result = [...turns].reverse().find((t) => t.role === 'agent' || t.kind === 'pair');
      return { kind: 'review', reason: result ? firstLine(result.content) : firstLine(last.reason), since };
    }
    case 'conflict':
      return { kind: 'conflict', reason: 'protected files need an approve or revert decision', since };
    case 'interrupted':
      if (last.trigger === 'stop') return { kind: 'interrupted', reason: 'stopped by the user', since };
      if (crashes >= MAX_CONSECUTIVE_INTERRUPTIONS)
        return { kind: 'interrupted', reason: `circuit breaker: ${crashes} crashes in a row`, since };
      return heldCrash(last) ? { kind: 'interrupted', reason: heldCrash(last)!, since } : null;
    default:
      return null;
  }
}

const reopenReason = (reason: string) => (reason === 'reopened' ? reason : `reopened: ${firstLine(reason)}`);

/**
 * The turns of the task's own work: an ask's, a follow-up's and a repair's runs left out, so the agent's question
 * before one is still the pending question after it (attention and lazy answer read the same turns).
 */
export function workTurns(turns: readonly TurnView[], changes: readonly ChangeView[]): TurnView[] {
  const neutral = neutralRuns(turns, changes);
  return turns.filter((t) => !t.run || !neutral.has(t.run));
}

/**
 * Runs that were asks (each starts with the human's question turn, its reply carrying the same run), follow-ups
 * and repairs (each starts with its move into working).
 */
function neutralRuns(turns: readonly TurnView[], changes: readonly ChangeView[]): Set<string> {
  const asks = turns.filter((t) => t.role === 'human' && t.kind === 'question' && t.run).map((t) => t.run!);
  const rounds = changes.filter((c) => c.run && (c.trigger === 'follow_up' || c.trigger === 'repair'));
  return new Set([...asks, ...rounds.map((c) => c.run!)]);
}

/**
 * Why a crash is not resumed automatically, when it is held for a human: it crashed
 * during merge-and-fix (the upstream merge before the turn conflicted), so a resume
 * would build on a half-merged branch; or lazy doctor ended a turn whose run was lost.
 * Null for an ordinary crash.
 */
export function heldCrash(last: Pick<ChangeView, 'trigger' | 'details'>): string | null {
  if (last.trigger !== 'turn_crashed') return null;
  if (typeof last.details?.held === 'string') return last.details.held; // lazy doctor ended a lost turn
  const files = last.details?.upstream_conflict;
  if (!Array.isArray(files)) return null;
  return (
    `crashed while fixing a conflicting upstream merge${files.length ? ` (${files.join(', ')})` : ''}: ` +
    `not resumed automatically; look at the merge in the worktree, then lazy resume`
  );
}

/** The agent's question, when its latest turn asked one and nothing has answered it yet. */
export function pendingQuestion(turns: readonly TurnView[]): TurnView | undefined {
  for (let i = turns.length - 1; i >= 0; i--) {
    const t = turns[i]!;
    if (t.role === 'agent') return t.kind === 'question' ? t : undefined;
    if (t.kind === 'answer' || t.kind === 'feedback') return undefined;
  }
  return undefined;
}
