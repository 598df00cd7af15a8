import { withLock } from '../../core/lock.js';
import { clearActive } from '../../store/markers.js';
import type { Store } from '../../store/store.js';
import { readOutcome, writeOutcome, type RunRecord } from '../runs.js';
import type { Outcome } from './outcome-types.js';
import { recordOutcome } from './outcome.js';

/**
 * A run whose task moved on before its agent started (stopped at once, or settled by a reconcile that judged it
 * dead): its turn says so, rather than a later reconcile calling a supervisor that exited cleanly dead.
 * Invariant: written under the run's lock, as a reconcile's settling is, so an outcome already written stands.
 */
export async function settleSuperseded(lazyDir: string, store: Store, rec: RunRecord, why: string): Promise<void> {
  const outcome = await withLock(lazyDir, `run-${rec.id}`, async () => {
    if (readOutcome(lazyDir, rec.id)) return null;
    const at = new Date().toISOString();
    const reason = `the agent was not started: ${why}`;
    const o: Outcome = {
      run: rec.id,
      task: rec.task,
      kind: 'interrupted',
      ended_at: at,
      attempts: 0,
      summary: reason,
      interrupt: { reason, exit_code: null, signal: null, logs: [], at },
    };
    writeOutcome(lazyDir, o);
    return o;
  });
  if (!outcome) return; // whoever wrote it records it and clears the marker
  await recordOutcome(store, rec, outcome);
  clearActive(lazyDir, rec.task, rec.id);
}
