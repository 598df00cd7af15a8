import type { Env } from '../core/env.js';
import { git } from '../core/git.js';

// Which pager show, log and diff page through on a terminal, chosen as git chooses its own:
// $LAZY_PAGER, then $GIT_PAGER, then git's core.pager, then $PAGER, then less. An empty value or `cat` means none.

export function choosePager(env: Env, corePager: string | undefined): string | undefined {
  const pager = env.LAZY_PAGER ?? env.GIT_PAGER ?? corePager ?? env.PAGER ?? 'less';
  return pager.trim() === '' || pager.trim() === 'cat' ? undefined : pager;
}

/** The pager for a repository: git's core.pager is only read when $LAZY_PAGER and $GIT_PAGER do not decide. */
export async function pagerFor(env: Env, repoDir: string): Promise<string | undefined> {
  if (env.LAZY_PAGER !== undefined || env.GIT_PAGER !== undefined) return choosePager(env, undefined);
  const r = await git(['config', '--get', 'core.pager'], { cwd: repoDir, allowFail: true });
  return choosePager(env, r.code === 0 ? r.stdout.replace(/\n$/, '') : undefined);
}

/** As git runs a pager: less and lv told to pass colours and quit when the text fits, unless the user said otherwise. */
export const pagerEnv = (env: Env): Env => ({ ...env, LESS: env.LESS ?? 'FRX', LV: env.LV ?? '-c' });
