import { sanitizeProse } from '../core/sanitize.js';
import { usageError } from '../core/errors.js';
import { assertAllowed } from '../model/table.js';
import type { TaskView } from '../model/fold.js';
import { resolveTaskId } from '../store/refs.js';
import { firstLine } from './comment.js';
import type { App } from './app.js';

export interface CloseInput { reason?: string }

/** close and reject both end in abandoned; they differ in intent, recorded as the trigger. */
export async function closeTask(app: App, idArg: string, action: 'close' | 'reject', input: CloseInput): Promise<TaskView> {
  const id = await resolveTaskId(app.repo.cwd, idArg);
  const reason = input.reason?.trim() ? sanitizeProse(input.reason.trim()) : action === 'close' ? 'closed' : 'rejected';
  const { view } = await app.store.mutate(id, action, (d) => {
    assertAllowed(action, d.status);
    d.transition('abandoned', action, reason);
    const s = d.view.session;
    if (s) d.putSession({ ...s, ended_at: d.ctx.now, outcome: action === 'close' ? 'closed' : 'rejected' });
    d.summary = firstLine(reason);
  });
  return view;
}

/** complete → blocked (a reason is required); abandoned → blocked with agent work, else backlog. */
export async function reopenTask(app: App, idArg: string, reasonArg?: string): Promise<TaskView> {
  const id = await resolveTaskId(app.repo.cwd, idArg);
  const { view } = await app.store.mutate(id, 'reopen', (d) => {
    assertAllowed('reopen', d.status);
    if (d.status === 'complete' && !reasonArg?.trim()) {
      throw usageError('reopening a complete task needs --reason: say what is still wrong with the accepted work');
    }
    const reason = reasonArg?.trim() ? sanitizeProse(reasonArg.trim()) : 'reopened';
    const hadAgentWork = d.view.sessions.length > 0 || d.view.turns.some((t) => t.role === 'agent');
    d.transition(d.status === 'complete' || hadAgentWork ? 'blocked' : 'backlog', 'reopen', reason);
    d.summary = firstLine(reason);
  });
  return view;
}
