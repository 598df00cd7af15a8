import { lastChange } from '../model/views.js';
import { notAllowed, timeout } from '../core/errors.js';
import type { TaskView } from '../model/fold.js';
import type { Situated } from '../model/situation.js';
import { placeOf } from '../core/place.js';
import { reconcileNow, type App } from './app.js';
import { taskArg } from './resolve.js';
import { willAutoResume } from '../reconcile/reconcile.js';
import { readActive } from '../store/markers.js';
import { queuedFeedback } from '../agents/supervisor/queue.js';

/** Polls (reconciling each time, so a crashed turn is resumed) until the predicate holds. */
export async function waitFor(
  app: App,
  id: string,
  o: { timeoutS?: number; until: (v: TaskView) => boolean; onTick?: (v: TaskView) => Promise<void> | void },
): Promise<TaskView> {
  const clock = app.io.clock;
  const deadline = o.timeoutS !== undefined ? clock.now() + o.timeoutS * 1000 : Infinity;
  for (let i = 0; ; i++) {
    if (i > 0) await reconcileNow(app);
    const v = await app.store.view(id);
    await o.onTick?.(v);
    if (o.until(v)) return v;
    if (clock.now() >= deadline) {
      throw timeout(`task ${id} is still ${v.status} after ${o.timeoutS} s`, {
        status: v.status,
        available_actions: v.available_actions,
      });
    }
    await clock.poll(Math.min(250 + i * 25, 1000));
  }
}

/**
 * Working, crashed in a way the next reconcile resumes, or parked with
 * queued feedback about to start: still the same piece of work.
 */
export const inProgress = (app: App, v: TaskView) =>
  v.status === 'working' ||
  ((willAutoResume(v, placeOf(app.repo)) || (v.status === 'blocked' && queuedFeedback(v).length > 0)) &&
    !!readActive(app.repo.lazyDir, v.id));

/** Blocks until the task leaves working; succeeds only when it lands in the blocked family. */
export async function waitTask(app: App, idArg: string, timeoutS?: number): Promise<{ task: TaskView }> {
  const { id } = await taskArg(app, idArg);
  return { task: await landed(app, id, await waitFor(app, id, { timeoutS, until: (t) => !inProgress(app, t) })) };
}

/** Where the task landed, with the actions this clone can take on it (what a script decides its next command by). */
export async function landed(app: App, id: string, v: TaskView): Promise<TaskView & Situated> {
  landedOrThrow(id, v);
  const { situateView } = await import('./situated.js');
  const { available_actions, action_conditions } = await situateView(app, v);
  return { ...v, available_actions, action_conditions };
}

/**
 * wait's verdict on a task that left working (wait and every --follow end on it): blocked or in conflict, or back from
 * a follow-up or repair, else refused.
 */
function landedOrThrow(id: string, v: TaskView): TaskView {
  // A follow-up or a repair lands where it started (complete, abandoned, interrupted too): that is its success.
  if (lastChange(v)?.trigger === 'round_end') return v;
  if (v.status !== 'blocked' && v.status !== 'conflict') {
    throw notAllowed(
      'wait',
      v.status,
      v.available_actions,
      `task ${id} ended ${v.status}${v.attention ? ` (${v.attention.reason})` : ''}, not blocked`,
      { attention: v.attention },
    );
  }
  return v;
}
