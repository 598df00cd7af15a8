import type { PendingViolation } from './views.js';

// Invariant: every path that parks a task (turn completion, pairing end, an aborted
// accept, a resolved conflict) derives blocked vs conflict here, from the pending
// violation set; conflict is never asserted.

export function parkStatus(v: { pending_violations: readonly PendingViolation[] }): 'blocked' | 'conflict' {
  return v.pending_violations.length > 0 ? 'conflict' : 'blocked';
}
