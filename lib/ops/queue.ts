import { asLazyError, usageError, type LazyError } from '../core/errors.js';
import { assertAllowed } from '../model/table.js';
import { placeOf } from '../core/place.js';
import type { TaskView } from '../model/fold.js';
import { allowedTaskArg } from './resolve.js';
import { reconcileNow, type App } from './app.js';

// queue, unqueue, pause and unpause: the fleet's queue as a person sets it. Each is one
// status-neutral changelog entry (from === to, trigger = the action), checked against the one
// table like any move, so it travels with push and a merge replays it (lib/model/schedule.ts).

export type QueueAction = 'queue' | 'unqueue' | 'pause' | 'unpause';

const DONE: Record<QueueAction, string> = {
  queue: 'queued',
  unqueue: 'unqueued',
  pause: 'paused',
  unpause: 'unpaused',
};

/** `--priority`: an integer (negative ones run after the default 0), or a usage error. */
export function parsePriority(raw: unknown): number | undefined {
  if (raw === undefined) return undefined;
  const n = typeof raw === 'string' && /^-?\d+$/.test(raw.trim()) ? Number(raw.trim()) : NaN;
  if (!Number.isSafeInteger(n))
    throw usageError(`--priority must be an integer (higher runs first, default 0), not '${String(raw)}'`);
  return n;
}

/**
 * Applies the action to each id in turn. A failure does not stop the others: once all are done
 * the first failure is thrown, naming its id and the ids that were updated, and the rest are warned.
 * The reconcile runs after the writes, not before: a pause lands before the next command's
 * reconcile would auto-resume the crash it holds.
 */
export async function scheduleTasks(
  app: App,
  action: QueueAction,
  idArgs: readonly string[],
  o: { priority?: number } = {},
): Promise<TaskView[]> {
  if (o.priority !== undefined && action !== 'queue') throw usageError('--priority goes with lazy queue only');
  const done: TaskView[] = [];
  const failed: { arg: string; error: LazyError }[] = [];
  for (const arg of idArgs) {
    try {
      done.push(await scheduleOne(app, action, arg, o.priority));
    } catch (e) {
      failed.push({ arg, error: asLazyError(e) });
    }
  }
  await reconcileNow(app);
  const tasks = await Promise.all(done.map((v) => releaseCrash(app, action, v)));
  if (failed.length) throw batchFailure(action, tasks, failed, app);
  return tasks;
}

async function scheduleOne(app: App, action: QueueAction, arg: string, priority?: number): Promise<TaskView> {
  const { id } = await allowedTaskArg(app, arg, action);
  const { view } = await app.store.mutate(id, action, (d) => {
    assertAllowed(action, d.view);
    const reason = priority === undefined ? DONE[action] : `${DONE[action]} at priority ${priority}`;
    d.transition(d.status, action, reason, priority === undefined ? {} : { details: { priority } });
    d.summary = reason;
  });
  return view;
}

/**
 * A crash this machine would have resumed, had the task not been paused, is resumed once unpaused, as
 * the next command's reconcile would have done. An unqueued crash is not: it was the fleet's, and the
 * person who took it back decides (lazy resume).
 */
async function releaseCrash(app: App, action: QueueAction, v: TaskView): Promise<TaskView> {
  if (action !== 'unpause') return v;
  const { maybeAutoResume, willAutoResume } = await import('../reconcile/reconcile.js');
  if (!willAutoResume(v, placeOf(app.repo))) return v;
  const actions: Parameters<typeof maybeAutoResume>[2] = [];
  await maybeAutoResume(
    { repo: app.repo, store: app.store, launcher: app.launcher, config: app.config },
    v.id,
    actions,
  );
  for (const a of actions) if (a.warn) app.io.warn(`task ${a.task}: ${a.detail}`);
  return app.store.view(v.id);
}

/** The first failure, naming its id and what was done anyway; the others are warnings. */
function batchFailure(
  action: QueueAction,
  tasks: TaskView[],
  failed: { arg: string; error: LazyError }[],
  app: App,
): LazyError {
  for (const f of failed.slice(1)) app.io.warn(`${f.arg}: ${f.error.message}`);
  const first = failed[0]!;
  const updated = tasks.map((t) => t.id);
  const also = updated.length ? ` (${DONE[action]} anyway: ${updated.join(', ')})` : '';
  const e = first.error.reworded(`${first.arg}: ${first.error.message}${also}`);
  Object.assign(e.details, {
    task: first.arg,
    updated,
    failed: failed.map((f) => ({ task: f.arg, code: f.error.code, message: f.error.message })),
  });
  return e;
}
