import { clearActive } from '../../store/markers.js';
import type { Store } from '../../store/store.js';
import { unreadOutcome, writeOutcomeOnce, type RunRecord } from '../runs.js';
import { recordOutcome } from './outcome/index.js';

/**
 * A run whose task moved on before its agent started (stopped at once, or settled by a reconcile that judged it
 * dead): its turn says so, rather than a later reconcile calling a supervisor that exited cleanly dead.
 */
export async function settleSuperseded(lazyDir: string, store: Store, rec: RunRecord, why: string): Promise<void> {
  const { outcome, wrote } = await writeOutcomeOnce(lazyDir, rec.id, async () =>
    unreadOutcome(rec, `the agent was not started: ${why}`, []),
  );
  if (!wrote) return; // whoever wrote it records it and clears the marker
  await recordOutcome(store, rec, outcome);
  clearActive(lazyDir, rec.task, rec.id);
}
