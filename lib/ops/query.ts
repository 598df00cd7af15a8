import { categoryOf, isStatus, isTerminal, type Status } from '../model/status.js';
import { availableActions } from '../model/table.js';
import type { TaskView } from '../model/fold.js';
import { usageError } from '../core/errors.js';
import { resolveTaskId } from '../store/refs.js';
import { refreshIndex, type Row } from '../store/listing.js';
import { warn } from '../output/emit.js';
import type { App } from './app.js';

export type ListedTask = Row & Pick<TaskView, 'available_actions' | 'category'>;

export interface ListInput { all?: boolean; status?: string[]; tag?: string; parent?: string }

export async function listTasks(app: App, input: ListInput): Promise<ListedTask[]> {
  const statuses = (input.status ?? []).flatMap((s) => s.split(',')).map((s) => s.trim()).filter(Boolean);
  for (const s of statuses) if (!isStatus(s)) throw usageError(`unknown status '${s}'`);
  const { rows, bad } = await refreshIndex(app.repo.cwd, app.repo.lazyDir, app.store.reader);
  for (const b of bad) warn(`task ${b.id} is unreadable and was skipped: ${b.error.message} (run lazy doctor)`);
  const parent = input.parent ? await resolveTaskId(app.repo.cwd, input.parent) : undefined;
  return rows
    .filter((r) => (statuses.length ? statuses.includes(r.status) : input.all || !isTerminal(r.status)))
    .filter((r) => !input.tag || r.tags.includes(input.tag))
    .filter((r) => !parent || r.parent === parent)
    .sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : a.id < b.id ? -1 : 1))
    .map((r) => ({ ...r, available_actions: availableActions(r.status as Status), category: categoryOf(r.status as Status) }));
}

export async function showTask(app: App, idArg: string): Promise<TaskView> {
  const id = await resolveTaskId(app.repo.cwd, idArg);
  return app.store.view(id);
}
