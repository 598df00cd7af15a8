import t from 'tap';
import { once } from 'node:events';
import type { ChildProcess } from 'node:child_process';
import { ObjectReader } from '../../lib/store/objects.js';
import { withEnv } from '../../lib/core/env.js';
import { gitSync, sandbox } from '../helpers/env.js';

// The store's one long-lived `git cat-file --batch-command`: revisions resolved through it as rev-parse
// resolves them, and a git that dies mid-way costs the reads it owed, never the reader.

t.test('resolveMany answers as rev-parse --verify does, in one round trip, among reads', async (t) => {
  const sb = sandbox();
  t.teardown(sb.cleanup);
  const git = (...a: string[]) => gitSync(sb.dir, sb.env, a).trim();
  git('tag', '-a', '-m', 'an annotated tag', 'v1');
  git('branch', 'lazy/abcd1234');
  const head = git('rev-parse', 'HEAD');
  const reader = new ObjectReader(sb.dir);
  t.teardown(() => reader.close());
  const names = ['main', 'refs/heads/lazy/abcd1234', 'v1', 'refs/remotes/origin/main', head, 'no such ref', 'x\ny'];
  const [resolved, blob] = await withEnv(sb.env, () =>
    Promise.all([reader.resolveMany(names), reader.read('HEAD:README.md')]),
  );
  t.same(resolved, [head, head, head, null, head, null, null], 'refs, a peeled tag, an oid; null for the rest');
  t.equal(blob?.data.toString(), '# sandbox\n', 'a read pipelined with it gets its own answer');
  const revParse = (r: string) => gitSync(sb.dir, sb.env, ['rev-parse', '--verify', '--quiet', `${r}^{commit}`]).trim();
  t.equal(resolved[2], revParse('v1'), "the tag's commit, as rev-parse peels it");
});

t.test('a reader whose git was killed fails what it owed and starts another git for the next read', async (t) => {
  const sb = sandbox();
  t.teardown(sb.cleanup);
  const reader = new ObjectReader(sb.dir);
  t.teardown(() => reader.close());
  await withEnv(sb.env, async () => {
    t.ok(await reader.read('HEAD'), 'a first read');
    const child = (reader as unknown as { batch: { child: ChildProcess } }).batch.child;
    const closed = once(child, 'close');
    process.kill(child.pid!, 'SIGKILL');
    await closed;
    const again = await reader.read('HEAD');
    t.equal(again?.type, 'commit', 'the next read is answered by a new git');
  });
});

t.test(
  'a reader closed with reads in flight answers them from the old git, and new reads from a new one',
  async (t) => {
    const sb = sandbox();
    t.teardown(sb.cleanup);
    const git = (...a: string[]) => gitSync(sb.dir, sb.env, a).trim();
    const head = git('rev-parse', 'HEAD');
    const reader = new ObjectReader(sb.dir);
    t.teardown(() => reader.close());
    await withEnv(sb.env, async () => {
      const many = Array.from({ length: 200 }, () => 'HEAD:README.md');
      const before = reader.readMany(many);
      reader.close();
      // Sent to a second git while the first still answers: the replies of the two never mix.
      const after = Promise.all([reader.resolveMany(['HEAD', 'main']), reader.read('HEAD')]);
      const [old, [resolved, commit]] = await Promise.all([before, after]);
      t.ok(
        old.every((o) => o?.data.toString() === '# sandbox\n'),
        'every read owed by the closed git is answered by it',
      );
      t.same(resolved, [head, head], "the new git's own answers");
      t.equal(commit?.oid, head);
    });
  },
);

t.test('exist says which objects are here, of any type, by their headers alone', async (t) => {
  const sb = sandbox();
  t.teardown(sb.cleanup);
  const git = (...a: string[]) => gitSync(sb.dir, sb.env, a).trim();
  const reader = new ObjectReader(sb.dir);
  t.teardown(() => reader.close());
  const oids = [
    git('rev-parse', 'HEAD'),
    git('rev-parse', 'HEAD^{tree}'),
    git('rev-parse', 'HEAD:README.md'),
    'f'.repeat(40),
    'a b',
  ];
  t.same(await withEnv(sb.env, () => reader.exist(oids)), [true, true, true, false, false]);
});
