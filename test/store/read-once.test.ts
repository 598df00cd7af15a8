import t from 'tap';
import { sandbox, cli } from '../helpers/env.js';
import { openRepo } from '../../lib/core/repo.js';
import { Store } from '../../lib/store/store.js';

// A mutation reads its task once: the read made before the lock (allowedTaskArg's check) is reused under it when
// the task has not moved since, and read again when it has, so nothing another writer landed in between is lost.

process.env.GIT_AUTHOR_NAME = 'Ada';
process.env.GIT_AUTHOR_EMAIL = 'ada@example.com';

/** A store whose reader counts the tasks it reads in full. */
async function counted(dir: string) {
  const store = new Store(await openRepo(dir), 'human');
  const reads = { n: 0 };
  const readOne = store.reader.readOne.bind(store.reader);
  store.reader.readOne = (id) => (reads.n++, readOne(id));
  return { store, reads };
}

t.test('the pre-lock read is reused when the task has not moved', async (t) => {
  const sb = sandbox();
  t.teardown(sb.cleanup);
  const id = await cli(sb).create('read once');
  const { store, reads } = await counted(sb.dir);
  t.teardown(() => store.close());
  await store.view(id);
  t.equal(reads.n, 1);
  await store.mutate(id, 'comment', (d) => void d.turn({ role: 'human', kind: 'comment', content: 'one' }));
  t.equal(reads.n, 1, 'the mutation read nothing in full');
  // The read is used once: the next mutation (the task moved) reads afresh and sees the first comment.
  const { view } = await store.mutate(
    id,
    'comment',
    (d) => void d.turn({ role: 'human', kind: 'comment', content: 'two' }),
  );
  t.equal(reads.n, 2);
  t.same(
    view.turns.filter((x) => x.kind === 'comment').map((x) => x.content),
    ['one', 'two'],
  );
});

t.test('a task that moved after the pre-lock read is read again under the lock', async (t) => {
  const sb = sandbox();
  t.teardown(sb.cleanup);
  const id = await cli(sb).create('moved');
  const { store, reads } = await counted(sb.dir);
  const other = new Store(await openRepo(sb.dir), 'human');
  t.teardown(() => [store, other].forEach((s) => s.close()));
  await store.view(id);
  await other.mutate(id, 'comment', (d) => void d.turn({ role: 'human', kind: 'comment', content: 'from the other' }));
  let plans = 0;
  const { view } = await store.mutate(id, 'comment', (d) => {
    plans++;
    d.turn({ role: 'human', kind: 'comment', content: 'mine' });
  });
  t.equal(plans, 1, 'planned once, on the fresh read: no lost compare-and-swap');
  t.equal(reads.n, 2);
  t.same(
    view.turns.filter((x) => x.kind === 'comment').map((x) => x.content),
    ['from the other', 'mine'],
  );
});

t.test('through the CLI: comment after its check lands on the latest task', async (t) => {
  const sb = sandbox();
  t.teardown(sb.cleanup);
  const l = cli(sb);
  const id = await l.create('cli');
  for (const m of ['a', 'b']) t.equal((await l.spawn('comment', id, '-m', m)).code, 0);
  const shown = JSON.parse((await l.spawn('show', id, '--json')).stdout);
  t.same(
    shown.turns.filter((x: { kind: string }) => x.kind === 'comment').map((x: { content: string }) => x.content),
    ['a', 'b'],
  );
});
