import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { App } from './app.js';
import { ensureExcluded, WORKTREES_DIR } from '../workspace/worktree.js';

export interface InitReport { repository: string; lazy_dir: string; actions: string[] }

/** Prepares the repository; every step checks before it acts, so rerunning is safe. */
export async function initRepo(app: App): Promise<InitReport> {
  const actions: string[] = [];
  for (const d of [app.repo.lazyDir, join(app.repo.lazyDir, 'locks'), join(app.repo.lazyDir, 'runs')]) mkdirSync(d, { recursive: true });
  if (ensureExcluded(app.repo)) actions.push(`added /${WORKTREES_DIR}/ to .git/info/exclude`);
  return { repository: app.repo.top, lazy_dir: app.repo.lazyDir, actions };
}
