import { resolveTaskId } from '../store/refs.js';
import type { TaskView } from '../model/fold.js';
import { assertAllowed, type Action } from '../model/table.js';
import type { App } from './app.js';

/** Resolves an id argument and reads the task: the first step of most operations. */
export async function taskArg(app: App, idArg: string): Promise<{ id: string; view: TaskView }> {
  const id = await resolveTaskId(app.repo.cwd, idArg);
  return { id, view: await app.store.view(id) };
}

/**
 * taskArg for an action, refused (exit 4) if the task's status does not allow it: checked before the
 * lock as well as under it, so a refused command answers at once instead of waiting out an accept.
 */
export async function allowedTaskArg(app: App, idArg: string, action: Action): Promise<{ id: string; view: TaskView }> {
  // The write that follows signs with the user's identity: its git runs while the task is read.
  app.store.person().catch(() => {}); // a failure is the write's to report, when it asks
  const t = await taskArg(app, idArg);
  assertAllowed(action, t.view);
  return t;
}
