import { sandbox, cli, gitSync, lazy } from '../helpers/env.js';
import { openRepo } from '../../lib/core/repo.js';
import { Store } from '../../lib/store/store.js';
import { concurrent } from '../helpers/concurrent.js';

const test = concurrent(6);

test('create, comment, close, reopen: state, JSON shapes and git history', async (t) => {
  const sb = sandbox();
  t.teardown(sb.cleanup);
  const l = cli(sb);

  const empty = await l.json('list');
  t.equal(empty.run.code, 0);
  t.same(empty.value, [], 'an empty list is [] not null');

  const created = await l.json(
    'create',
    'fix the flaky',
    'login test',
    '--prompt',
    'It fails 1 in 10 runs.',
    '--accept',
    'passes 100 times',
    '--tag',
    'auth',
    '--tag',
    'auth',
  );
  t.equal(created.run.code, 0);
  t.same(Object.keys(created.value), ['task'], 'create --json prints {task}');
  const id = created.value.task.id as string;
  t.match(id, /^[0-9a-z]{8}$/, 'ids are short lowercase');
  t.equal(created.value.task.goal, 'fix the flaky login test');
  t.equal(created.value.task.status, 'backlog');
  t.same(created.value.task.tags, ['auth'], 'tags are de-duplicated');
  t.same(created.value.task.available_actions, ['start', 'queue', 'close', 'comment', 'edit']);

  t.equal(
    (await l('comment', id.slice(0, 4), '-m', 'look at the retry loop')).code,
    0,
    'a 4-char prefix names the task',
  );
  t.equal((await l.input('second comment from stdin\n', 'comment', id)).code, 0, 'comment text on stdin');

  const shown = await l.json('show', id);
  const v = shown.value;
  for (const k of ['id', 'goal', 'status', 'available_actions', 'turns', 'changelog'])
    t.ok(k in v, `show --json has ${k}`);
  t.equal(v.turns.length, 2);
  t.same(
    v.turns.map((x: any) => [x.sequence, x.role, x.actor, x.content]),
    [
      [1, 'human', 'human', 'look at the retry loop'],
      [2, 'human', 'human', 'second comment from stdin\n'],
    ],
  );
  for (const x of v.turns) t.match(x.timestamp, /^\d{4}-\d\d-\d\dT/);
  t.same(
    v.changelog.map((c: any) => [c.status, c.actor, c.reason]),
    [['backlog', 'human', 'created']],
    'every task starts with a backlog entry',
  );
  t.ok(v.changelog[0].timestamp);
  t.same(
    v.created_by,
    { actor: 'human', name: 'Ada Lovelace', email: 'ada@example.com' },
    'the git identity is recorded with the actor',
  );

  const closed = await l.json('close', id, '-m', 'duplicate of another task');
  t.equal(closed.value.task.status, 'abandoned');
  t.same(closed.value.task.available_actions, ['reopen'], 'terminal tasks are frozen except for reopen');
  const refused = await l.json('comment', id, '-m', 'too late');
  t.equal(refused.run.code, 4, 'comment on a terminal task is refused');
  t.equal(refused.value.error.code, 'action_not_allowed');
  t.equal(refused.value.error.details.status, 'abandoned');
  t.same(refused.value.error.details.available_actions, ['reopen']);

  const reopened = await l.json('reopen', id);
  t.equal(reopened.value.task.status, 'backlog', 'an abandoned task with no agent work reopens to backlog');
  t.same(
    reopened.value.task.changelog.map((c: any) => c.status),
    ['backlog', 'abandoned', 'backlog'],
  );

  t.same(
    (await l.json('list')).value.map((x: any) => x.id),
    [id],
  );
  const listed = (await l.json('list')).value[0];
  t.notOk('turns' in listed, 'list rows may omit turns');
  t.equal(listed.status, 'backlog');
  t.same(listed.available_actions, ['start', 'queue', 'close', 'comment', 'edit']);

  // The ref's history reads like the task's story.
  const log = gitSync(sb.dir, sb.env, [
    'log',
    '--format=%an <%ae>|%s|%(trailers:key=Lazy-Op,valueonly,separator=%x2C)',
    `refs/lazy/tasks/${id}`,
  ])
    .trim()
    .split('\n');
  t.same(
    log.map((x) => x.split('|')[1]),
    [
      `lazy: reopen ${id} (human)`,
      `lazy: close ${id} (human)`,
      `lazy: comment ${id} (human)`,
      `lazy: comment ${id} (human)`,
      `lazy: create ${id} (human)`,
    ],
  );
  t.ok(
    log.every((x) => x.startsWith('Ada Lovelace <ada@example.com>|')),
    'commits are authored by the user',
  );
  t.same(
    log.map((x) => x.split('|')[2]),
    ['reopen', 'close', 'comment', 'comment', 'create'],
  );
  const tree = gitSync(sb.dir, sb.env, ['ls-tree', '-r', '--name-only', `refs/lazy/tasks/${id}`])
    .trim()
    .split('\n');
  t.equal(tree.filter((p) => p.startsWith('turns/')).length, 2, 'one file per turn');
  t.equal(tree.filter((p) => p.startsWith('changelog/')).length, 3, 'one file per status change');
  t.ok(tree.includes('task.yaml'));
  const lazyLog = await l.json('log', id);
  t.equal(lazyLog.value.length, 5);
  t.same(
    lazyLog.value.map((x: any) => x.op),
    ['reopen', 'close', 'comment', 'comment', 'create'],
  );
  t.same(
    lazyLog.value.map((x: any) => [x.from, x.to]),
    [
      ['abandoned', 'backlog'],
      ['backlog', 'abandoned'],
      [null, null],
      [null, null],
      [null, 'backlog'],
    ],
    'each entry carries from and to (null when the commit changed no status; from is null for a new task)',
  );
  t.notOk('status' in lazyLog.value[0], 'never the "a -> b" string');
  t.match((await l('log', id)).stdout, /\(abandoned -> backlog\)/, 'the text log still reads a -> b');
});

test('list filters and the terminal default', async (t) => {
  const sb = sandbox();
  t.teardown(sb.cleanup);
  const l = cli(sb);
  const a = await l.create('task a', '--tag', 'x');
  const b = await l.create('task b');
  await l('close', b);
  t.same(
    (await l.json('list')).value.map((x: any) => x.id),
    [a],
    'terminal tasks are hidden by default',
  );
  t.same((await l.json('list', '--all')).value.map((x: any) => x.id).sort(), [a, b].sort());
  t.same(
    (await l.json('list', '--status', 'abandoned')).value.map((x: any) => x.id),
    [b],
  );
  t.same(
    (await l.json('list', '--tag', 'x', '--all')).value.map((x: any) => x.id),
    [a],
  );
  // On a terminal a header (piped, rows only: test/output/table.test.ts).
  const text = await lazy(['list'], {
    cwd: sb.dir,
    env: sb.env,
    io: { isTTY: { stdin: false, stdout: true, stderr: false } },
  });
  t.match(text.stdout, /ID\s+STATUS\s+UPDATED/);
  t.match(text.stdout, /task a/);
  const bad = await l.json('list', '--status', 'nope');
  t.equal(bad.run.code, 2);
  t.equal(bad.value.error.code, 'usage');
});

test('reopen a complete task needs a reason', async (t) => {
  // A complete task cannot be produced without accept, which a later suite covers;
  // here the usage rule is checked through the abandoned path and the table.
  const sb = sandbox();
  t.teardown(sb.cleanup);
  const l = cli(sb);
  const id = await l.create('a');
  const r = await l.json('reopen', id);
  t.equal(r.run.code, 4, 'reopen of a backlog task is refused');
  t.same(r.value.error.details.available_actions, ['start', 'close', 'comment', 'edit']);
});

test('LAZY_ACTOR names the channel; the person is still recorded', async (t) => {
  const sb = sandbox();
  t.teardown(sb.cleanup);
  const id = await cli(sb).create('actors');
  await cli(sb, { LAZY_ACTOR: 'builder' })('comment', id, '-m', 'relayed by the builder');
  const v = (await cli(sb).json('show', id)).value;
  t.equal(v.turns[0].actor, 'builder');
  t.equal(v.turns[0].person.name, 'Ada Lovelace');
  const bad = await cli(sb, { LAZY_ACTOR: 'robot' }).json('comment', id, '-m', 'x');
  t.equal(bad.run.code, 2, 'an unknown actor is a usage error');
});

// A writer racing another on one task ref (in this process; test/cli/concurrency.test.ts races real processes).
// A Store used outside a command reads the process's environment for its commit identity.
process.env.GIT_AUTHOR_NAME = 'Ada Lovelace';
process.env.GIT_AUTHOR_EMAIL = 'ada@example.com';

test('a writer that loses the compare-and-swap re-reads and re-applies', async (t) => {
  const sb = sandbox();
  t.teardown(sb.cleanup);
  const id = await cli(sb).create('race');
  const repo = await openRepo(sb.dir);
  const a = new Store(repo, 'human');
  const b = new Store(repo, 'human');
  t.teardown(() => {
    a.close();
    b.close();
  });
  let plans = 0;
  await a.mutate(id, 'comment', async (d) => {
    plans++;
    // While A holds its plan, B moves the ref underneath it (bypassing the lock, as
    // a process on a shared checkout could); A's compare-and-swap must fail.
    if (plans === 1)
      await b.mutateUnlocked(id, 'comment', (d2) => {
        d2.turn({ role: 'human', kind: 'comment', content: 'from B' });
      });
    d.turn({ role: 'human', kind: 'comment', content: 'from A' });
  });
  t.equal(plans, 2, 'A planned twice: once on the stale tip, once after re-reading');
  const v = await a.view(id);
  t.same(
    v.turns.map((x) => x.content),
    ['from B', 'from A'],
    'neither update was lost',
  );
});

test('a re-applied operation that is no longer allowed fails with exit 4', async (t) => {
  const sb = sandbox();
  t.teardown(sb.cleanup);
  const id = await cli(sb).create('race');
  const repo = await openRepo(sb.dir);
  const a = new Store(repo, 'human');
  const b = new Store(repo, 'human');
  t.teardown(() => {
    a.close();
    b.close();
  });
  let plans = 0;
  const err = await a
    .mutate(id, 'close', async (d) => {
      plans++;
      if (plans === 1)
        await b.mutateUnlocked(id, 'close', (d2) => {
          d2.transition('abandoned', 'close', 'closed by B');
        });
      d.transition('abandoned', 'close', 'closed by A');
    })
    .catch((e) => e);
  t.equal(err.exitCode, 4);
  t.equal(err.details.status, 'abandoned');
  const v = await a.view(id);
  t.same(
    v.changelog.map((c) => c.reason),
    ['created', 'closed by B'],
  );
});
