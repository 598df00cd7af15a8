import { git } from '../core/git.js';
import { invalidData } from '../core/errors.js';
import { headOf } from './worktree.js';

// A stored file name (a violation record, possibly pulled from a remote) reaches git only
// as a literal pathspec: '*' names a file called '*', never every file.
const literal = (args: string[]) => ['--literal-pathspecs', ...args];

/** Only a point the branch itself passed through is restored from, never any commit a record names. */
export async function assertRestorable(cwd: string, file: string, from: string): Promise<void> {
  if ((await git(['merge-base', '--is-ancestor', from, 'HEAD'], { cwd, allowFail: true })).code !== 0) {
    throw invalidData(
      `cannot revert ${file}: the recorded base ${from.slice(0, 10)} is not a commit on the task branch`,
      { file, path: '/base', base: from },
    );
  }
}

/**
 * Restores one file to its state at `from` (checked first with
 * assertRestorable) on the worktree's branch, in a commit of its own.
 */
export async function restoreFile(cwd: string, file: string, from: string, message: string): Promise<string | null> {
  const existed = (await git(['cat-file', '-e', `${from}:${file}`], { cwd, allowFail: true })).code === 0;
  if (existed) await git(literal(['checkout', from, '--', file]), { cwd });
  else await git(literal(['rm', '-q', '-f', '--ignore-unmatch', '--', file]), { cwd });
  const staged = (await git(literal(['diff', '--cached', '--quiet', '--', file]), { cwd, allowFail: true })).code !== 0;
  if (!staged) return null;
  await git(literal(['commit', '-q', '--no-verify', '-m', message, '--', file]), { cwd });
  return headOf(cwd);
}
