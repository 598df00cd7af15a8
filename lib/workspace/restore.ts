import { git } from '../core/git.js';
import { headOf } from './worktree.js';

/** Restores one file to its state at `from` on the worktree's branch, in a commit of its own. */
export async function restoreFile(cwd: string, file: string, from: string, message: string): Promise<string | null> {
  const existed = (await git(['cat-file', '-e', `${from}:${file}`], { cwd, allowFail: true })).code === 0;
  if (existed) await git(['checkout', from, '--', file], { cwd });
  else await git(['rm', '-q', '-f', '--ignore-unmatch', '--', file], { cwd });
  const staged = (await git(['diff', '--cached', '--quiet', '--', file], { cwd, allowFail: true })).code !== 0;
  if (!staged) return null;
  await git(['commit', '-q', '--no-verify', '-m', message, '--', file], { cwd });
  return headOf(cwd);
}
