import { byClock, type TaskDocs, type TurnEntry } from './docs.js';
import type { Json } from '../core/json.js';
import { commandRunOf, reviewOf, turnMode } from './details.js';
import type { TurnView } from './views.js';

// The review package is the `review` detail of a turn that ended with the branch in
// front of a person: an agent work turn (never an ask or a repair, which are not reviewed) or a
// pairing session. Its head is what a reviewer saw; accept merges only that head.

type TurnLike = Pick<TurnEntry, 'role' | 'kind'> & { details?: { [k: string]: Json } | null };

/** Agent turns that are never a review: an ask (read-only) and a repair (a throwaway run that decides nothing). */
export const UNREVIEWED: ReadonlySet<string> = new Set(['ask', 'repair']);

export function isReviewTurn(t: TurnLike): boolean {
  if (!reviewOf(t)) return false;
  return (t.role === 'agent' && !UNREVIEWED.has(turnMode(t) ?? '')) || t.kind === 'pair';
}

/**
 * The branch head a person reviewed: the latest review's head, moved on by the revert
 * commits lazy itself made for decisions recorded after that review. Null with no review.
 */
export function reviewedHead(docs: Pick<TaskDocs, 'turns' | 'decisions'>): { head: string; turn: string } | null {
  const review = [...docs.turns].sort(byClock).reverse().find(isReviewTurn);
  if (!review) return null;
  let head = reviewOf(review)!.head;
  for (const d of [...docs.decisions].sort(byClock)) if (byClock(d, review) > 0 && d.commit) head = d.commit;
  return { head, turn: review.id };
}

/** A person's command on the record (lazy run), as show lists it beside the agent's. */
export interface ReviewerCommand {
  /** The turn that records it. */
  sequence: number;
  actor: string;
  /** The person's name, when the turn carries one. */
  person: string | null;
  at: string;
  command: string;
  exit_code: number | null;
  signal: string | null;
  duration_ms: number;
  /** The branch head it ran on. */
  head: string;
}

/**
 * The commands people ran on the work under review: every command turn since the latest review turn (all of them
 * before any review), oldest first. One run on an earlier head is about work the review no longer shows.
 */
export function reviewerCommands(v: { turns: readonly TurnView[] }): ReviewerCommand[] {
  let from = 0;
  for (let i = v.turns.length - 1; i >= 0; i--)
    if (isReviewTurn(v.turns[i]!)) {
      from = i + 1;
      break;
    }
  const out: ReviewerCommand[] = [];
  for (const t of v.turns.slice(from)) {
    const c = commandRunOf(t);
    if (!c) continue;
    const { command, exit_code, signal, duration_ms, head } = c;
    const person = t.person?.name ?? null;
    out.push({
      sequence: t.sequence,
      actor: t.actor,
      person,
      at: t.timestamp,
      command,
      exit_code,
      signal,
      duration_ms,
      head,
    });
  }
  return out;
}
