import { sanitizeProse } from '../core/sanitize.js';
import { usageError } from '../core/errors.js';
import { assertAllowed } from '../model/table.js';
import type { TaskView } from '../model/fold.js';
import { firstLine } from './comment.js';
import { boundedText } from './create.js';
import { allowedTaskArg } from './resolve.js';
import type { App } from './app.js';

/**
 * complete or abandoned → blocked when an agent worked on the task, else backlog (never
 * started: start runs its first turn). A complete task needs a reason. The ended session
 * stays ended, so the next turn opens a new one.
 */
export async function reopenTask(app: App, idArg: string, reasonArg?: string): Promise<{ task: TaskView }> {
  // Checked before the lock too: a reopen must not wait out an accept and reopen what it just merged.
  const { id } = await allowedTaskArg(app, idArg, 'reopen');
  const given = reasonArg?.trim() ? boundedText('the reason', sanitizeProse(reasonArg.trim())) : undefined;
  const { view } = await app.store.mutate(id, 'reopen', (d) => {
    assertAllowed('reopen', d.view);
    if (d.status === 'complete' && !given) {
      throw usageError('reopening a complete task needs --reason: say what is still wrong with the accepted work');
    }
    const reason = given ?? 'reopened';
    const hadAgentWork = d.view.sessions.length > 0 || d.view.turns.some((t) => t.role === 'agent');
    d.transition(hadAgentWork ? 'blocked' : 'backlog', 'reopen', reason);
    d.summary = firstLine(reason);
  });
  return { task: view };
}
