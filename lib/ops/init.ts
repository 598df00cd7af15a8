import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { App } from './app.js';
import { ensureExcluded, WORKTREES_DIR } from '../workspace/worktree.js';
import { git } from '../core/git.js';

export interface InitReport {
  repository: string;
  lazy_dir: string;
  actions: string[];
}

/** Prepares the repository; every step checks before it acts, so rerunning is safe. */
export async function initRepo(app: App): Promise<InitReport> {
  const actions: string[] = [];
  for (const d of [app.repo.lazyDir, join(app.repo.lazyDir, 'locks'), join(app.repo.lazyDir, 'runs')])
    mkdirSync(d, { recursive: true });
  if (ensureExcluded(app.repo)) actions.push(`added /${WORKTREES_DIR}/ to .git/info/exclude`);
  if (await ensureRefLogs(app.repo.cwd))
    actions.push('set core.logAllRefUpdates=always (reflogs let lazy doctor restore a damaged task ref)');
  return { repository: app.repo.top, lazy_dir: app.repo.lazyDir, actions };
}

/**
 * Reflogs for every ref, so doctor can restore a damaged one. lazy's own writes create
 * their reflog anyway (update-ref --create-reflog), so repositories initialised before
 * this need nothing; this adds the refs a pull writes in bulk. True when it had to set it.
 */
export async function ensureRefLogs(cwd: string): Promise<boolean> {
  const now = (await git(['config', '--get', 'core.logAllRefUpdates'], { cwd, allowFail: true })).stdout.trim();
  if (now === 'always') return false;
  await git(['config', 'core.logAllRefUpdates', 'always'], { cwd });
  return true;
}
