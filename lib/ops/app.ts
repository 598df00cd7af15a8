import { openRepo, type Repo } from '../core/repo.js';
import { Store } from '../store/store.js';
import type { Output } from '../output/emit.js';

// What every command runs with: the repository, the store, and how to print.
export interface App { repo: Repo; store: Store; out: Output }

export interface AppOptions { cwd: string; json: boolean }

export async function openApp(o: AppOptions): Promise<App> {
  const repo = await openRepo(o.cwd);
  return { repo, store: new Store(repo), out: { json: o.json } };
}

export function closeApp(app: App): void {
  app.store.close();
}
