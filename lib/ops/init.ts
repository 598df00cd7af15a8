import { mkdirSync, readFileSync, appendFileSync } from 'node:fs';
import { join } from 'node:path';
import type { App } from './app.js';
import { WORKTREES_DIR } from '../workspace/worktree.js';

export interface InitReport { repository: string; lazy_dir: string; actions: string[] }

/** Prepares the repository; every step checks before it acts, so rerunning is safe. */
export async function initRepo(app: App): Promise<InitReport> {
  const actions: string[] = [];
  for (const d of [app.repo.lazyDir, join(app.repo.lazyDir, 'locks'), join(app.repo.lazyDir, 'runs')]) mkdirSync(d, { recursive: true });
  // Task worktrees live under <top>/.lazy/ where editors see them; keep them out of git status.
  const exclude = join(app.repo.commonDir, 'info', 'exclude');
  let text = '';
  try { text = readFileSync(exclude, 'utf8'); } catch { mkdirSync(join(app.repo.commonDir, 'info'), { recursive: true }); }
  const line = `/${WORKTREES_DIR}/`;
  if (!text.split('\n').includes(line)) {
    appendFileSync(exclude, `${text && !text.endsWith('\n') ? '\n' : ''}# lazy task worktrees\n${line}\n`);
    actions.push(`added ${line} to .git/info/exclude`);
  }
  return { repository: app.repo.top, lazy_dir: app.repo.lazyDir, actions };
}
