import { spawnSync } from 'node:child_process';
import { sandbox, cli, gitSync, LAZY } from '../helpers/env.js';
import { concurrent } from '../helpers/concurrent.js';

// lazy archive through the built binary: the command, then show, log, reopen and completion of an archived task.

const test = concurrent(1);

test('lazy archive, then show, log, reopen and completion of an archived task, as real processes', async (t) => {
  const sb = sandbox();
  t.teardown(sb.cleanup);
  const l = cli(sb);
  t.equal((await l.spawn('__bench-seed', '3', '--complete', '2', '--days-ago', '40')).code, 0);
  const r = await l.spawn('archive', '--json');
  t.equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  t.equal(out.archived.length, 2, 'the two finished tasks are archived');
  const id = out.archived[0] as string;
  t.equal(gitSync(sb.dir, sb.env, ['for-each-ref', 'refs/lazy/tasks/']).trim().split('\n').length, 1);
  const text = await l.spawn('archive');
  t.match(text.stdout, /^archived 0 task\(s\) finished more than 30 day\(s\) ago/, 'the text names what it did');

  const shown = await l.spawn('show', id.slice(0, 5), '--json');
  t.equal(shown.code, 0, shown.stderr);
  t.equal(JSON.parse(shown.stdout).id, id);
  const log = await l.spawn('log', id);
  t.equal(log.code, 0, log.stderr);
  t.match(log.stdout, new RegExp(`lazy: create ${id}`), 'log prints the archived history');
  const done = spawnSync(process.execPath, [LAZY, '__complete', '--', 'show', id.slice(0, 3)], {
    cwd: sb.dir,
    env: sb.env,
    encoding: 'utf8',
  });
  t.match(done.stdout, id, 'completion offers archived ids');

  const reopened = await l.spawn('reopen', id, '-m', 'not done after all', '--json');
  t.equal(reopened.code, 0, reopened.stderr);
  t.match(JSON.parse(reopened.stdout).task.status, /^(backlog|blocked)$/, 'reopened');
  const live = gitSync(sb.dir, sb.env, ['for-each-ref', '--format=%(refname)', `refs/lazy/tasks/${id}`]).trim();
  t.equal(live, `refs/lazy/tasks/${id}`, 'the task is live again');
  const missing = await l.spawn('show', 'zzzzzzzz');
  t.equal(missing.code, 3, 'a task neither live nor archived is still not found');
});
