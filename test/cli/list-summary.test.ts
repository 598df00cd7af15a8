import t from 'tap';
import { join } from 'node:path';
import { cli, gitSync, lazySpawn, sandbox } from '../helpers/env.js';

// The first list of a clone reads each task's row from its tip commit's summary: no task's documents. Shown by a
// clone that has the commits and trees but no blob (a partial clone whose remote is gone), where any fold fails.

t.test('a partial clone without a blob lists every task that carries a summary', async (t) => {
  const sb = sandbox();
  t.teardown(() => sb.cleanup());
  const l = cli(sb);
  t.equal((await l('__bench-seed', '60')).code, 0);
  const git = (cwd: string, ...args: string[]) => gitSync(cwd, sb.env, args);
  git(sb.dir, 'config', 'uploadpack.allowFilter', 'true');
  const b = join(sb.home, 'partial');
  git(sb.home, 'init', '-q', '-b', 'main', b);
  git(b, 'remote', 'add', 'origin', sb.dir);
  git(b, 'config', 'remote.origin.promisor', 'true');
  git(b, 'config', 'remote.origin.partialclonefilter', 'blob:none');
  git(b, 'fetch', '-q', '--filter=blob:none', 'origin', 'refs/lazy/tasks/*:refs/lazy/tasks/*');
  // The promisor is gone: any blob read now fails, as a fold would.
  git(b, 'remote', 'set-url', 'origin', join(sb.home, 'nowhere'));
  const some = git(b, 'for-each-ref', '--count=1', '--format=%(refname)', 'refs/lazy/tasks/').trim();
  const blob = git(sb.dir, 'rev-parse', `${some}:task.yaml`).trim();
  t.throws(() => git(b, 'cat-file', '-p', blob), 'the clone cannot read a task blob');

  const r = await lazySpawn(['list'], { cwd: b, env: { ...sb.env, GIT_TERMINAL_PROMPT: '0' } });
  t.equal(r.code, 0, r.stderr);
  const ids = r.stdout
    .trim()
    .split('\n')
    .map((line) => line.split('\t')[0]);
  t.equal(ids.length, 60, 'every seeded task is listed, from its summary');
  t.equal(r.stderr, '', 'none was unreadable');
  t.not((await lazySpawn(['list', '--json'], { cwd: b, env: sb.env })).code, 0, 'while a read that folds fails here');

  const again = await lazySpawn(['list'], { cwd: b, env: sb.env });
  t.equal(again.stdout, r.stdout, 'the next list reads the index it built');
});
