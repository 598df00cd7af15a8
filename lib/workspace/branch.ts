import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Repo } from '../core/repo.js';

// Branch names lazy derives, and the checkout's current branch read straight from HEAD.

export const taskBranch = (id: string) => `lazy/${id}`;

/** The branch checked out where lazy runs, or null on a detached HEAD. */
export function currentBranch(repo: Repo): string | null {
  try {
    const head = readFileSync(join(repo.gitDir, 'HEAD'), 'utf8').trim();
    return head.startsWith('ref: refs/heads/') ? head.slice('ref: refs/heads/'.length) : null;
  } catch {
    return null;
  }
}
