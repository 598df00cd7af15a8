import { byClock, type TaskDocs, type TurnEntry } from './docs.js';
import type { Json } from '../core/json.js';
import { reviewOf, turnMode } from './details.js';

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
