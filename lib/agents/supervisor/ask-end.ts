import type { Store } from '../../store/store.js';
import { setAsideSince } from '../../workspace/ask-snapshot.js';
import type { Outcome } from './outcome/types.js';
import type { RunRecord } from '../runs.js';

// Invariant: an ask commits nothing and leaves nothing. However it ends (an answer, a
// failure, a stop, the watchdog, a crash found by reconcile), whatever it left in the
// worktree beyond the snapshot taken when it started is set aside before its end is recorded.

export async function setAsideAskLeftovers(
  store: Store,
  rec: RunRecord,
  o: Outcome,
  note: (m: string) => void,
): Promise<Outcome> {
  if (rec.kind !== 'ask') return o;
  if (!rec.snapshot) {
    // Without a snapshot, what the ask left cannot be told from earlier work: keep both, and say so.
    return rec.snapshot === null
      ? {
          ...o,
          risks: [
            ...(o.risks ?? []),
            'lazy could not snapshot the task worktree when the ask started (an unmerged index?): ' +
              'anything the ask left there was kept',
          ],
        }
      : o;
  }
  const v = await store.view(rec.task);
  // Another turn already works in this worktree: what is there now is its work, not the ask's.
  if (v.status === 'working' && v.current_run !== rec.id) return o;
  try {
    const s = await setAsideSince(rec.worktree, rec.snapshot, { task: rec.task, run: rec.id });
    if (!s) return o;
    note(s.note);
    return { ...o, set_aside: s };
  } catch (e) {
    const risk = `lazy could not set aside what the ask left in the task worktree: ${(e as Error).message}`;
    note(risk);
    return { ...o, risks: [...(o.risks ?? []), risk] };
  }
}
