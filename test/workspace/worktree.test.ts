import t from 'tap';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { gitSync, sandbox } from '../helpers/env.js';
import { openRepo } from '../../lib/core/repo.js';
import { withEnv } from '../../lib/core/env.js';
import { ensureWorktree } from '../../lib/workspace/worktree.js';

// Worktrees made side by side (a worker's --max N, several starts at once) and over a stale
// registration (a worktree folder deleted by hand).

t.test('many worktrees created at once in one repository all succeed', async (t) => {
  const sb = sandbox();
  t.teardown(sb.cleanup);
  await withEnv(sb.env, async () => {
    const repo = await openRepo(sb.dir);
    for (let round = 0; round < 4; round++) {
      const names = Array.from({ length: 8 }, (_, i) => `r${round}t${i}`);
      const made = await Promise.allSettled(
        names.map((n) =>
          ensureWorktree(repo, { path: join(sb.dir, '.lazy', 'wt', n), branch: `lazy/${n}`, base: 'main' }),
        ),
      );
      const failed = made
        .filter((m) => m.status === 'rejected')
        .map((m) => String((m as PromiseRejectedResult).reason));
      t.same(failed, [], `round ${round}: all 8 created`);
    }
  });
});

t.test('a worktree whose folder was deleted by hand is made again on its branch', async (t) => {
  const sb = sandbox();
  t.teardown(sb.cleanup);
  await withEnv(sb.env, async () => {
    const repo = await openRepo(sb.dir);
    const path = join(sb.dir, '.lazy', 'wt', 'gone');
    await ensureWorktree(repo, { path, branch: 'lazy/gone', base: 'main' });
    rmSync(path, { recursive: true, force: true });
    const again = await ensureWorktree(repo, { path, branch: 'lazy/gone', base: 'main' });
    t.equal(again.created, true);
    t.ok(existsSync(join(path, 'README.md')));
    t.equal(gitSync(path, sb.env, ['rev-parse', '--abbrev-ref', 'HEAD']).trim(), 'lazy/gone');
  });
});
