import { LazyError } from '../../core/errors.js';
import { thisHost } from '../../core/proc.js';
import type { Terminated } from '../../agents/supervisor/kill.js';
import type { TaskView } from '../../model/fold.js';
import { waitFor } from '../wait.js';
import type { App } from '../app.js';
import { setAsideNote } from '../../model/details.js';

// Stopping an ask: the agent is ended like any other, but the task is not interrupted.
// The ask's supervisor records its end, which sets aside what the ask left in the worktree
// and returns the task to its status before the ask (reconcile does both for a dead
// supervisor). Waiting for that here means that once stop returns, the worktree is the
// one the review saw, and no later turn can start while the ask's leftovers are still there.

const RECORD_TIMEOUT_S = 15;

export async function stopAsk(
  app: App,
  id: string,
  o: { from: 'blocked' | 'conflict'; run: string | null; end: (() => Promise<Terminated>) | null },
): Promise<Terminated & { task: TaskView; ask: { set_aside: string | null } }> {
  const term: Terminated = o.end ? await o.end() : { signal: 'none', waited_ms: 0 };
  const ended = (v: { status: string; current_run: string | null }) =>
    v.status !== 'working' || v.current_run !== o.run;
  let task = o.end
    ? await waitFor(app, id, { timeoutS: RECORD_TIMEOUT_S, until: ended }).catch((e) => {
        if (e instanceof LazyError && e.code === 'timeout') return null;
        throw e;
      })
    : null;
  if (!task) {
    // Nothing recorded the ask's end (no run here, or a supervisor that does not answer):
    // return the task by the table's stop edge; whoever records the run later changes nothing.
    task = (
      await app.store.mutate(id, 'stop', (d) => {
        if (d.status !== 'working' || d.view.current_run !== o.run) return;
        d.transition(o.from, 'stop', `ask stopped by the user: back to ${o.from}`, {
          ...(o.run ? { run: o.run } : {}),
          host: thisHost(),
          details: { user_stopped: true },
        });
      })
    ).view;
  }
  const answer = task.turns.find((t) => t.run === o.run && t.role === 'agent');
  const note = setAsideNote(answer);
  return { task, ...term, ask: { set_aside: note } };
}
