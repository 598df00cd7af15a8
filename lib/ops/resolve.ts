import { resolveTaskId } from '../store/refs.js';
import type { TaskView } from '../model/fold.js';
import type { App } from './app.js';

/** Resolves an id argument and reads the task: the first step of most operations. */
export async function taskArg(app: App, idArg: string): Promise<{ id: string; view: TaskView }> {
  const id = await resolveTaskId(app.repo.cwd, idArg);
  return { id, view: await app.store.view(id) };
}
