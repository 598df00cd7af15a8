import t, { type Test } from 'tap';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli, gitSync, sandbox, type Sandbox } from '../helpers/env.js';
import { team } from '../helpers/team.js';
import { refreshIndex } from '../../lib/store/listing/index.js';
import { TaskReader } from '../../lib/store/read.js';

// The listing index is a cache: a base of one line per row, a small delta of rows changed
// since, and a fingerprint of the for-each-ref text they were checked against. Whatever
// happens to its files, a list says what the refs say.

const lazyDir = (sb: Sandbox) => join(sb.dir, '.git', 'lazy');
const base = (sb: Sandbox) => join(lazyDir(sb), 'index.ndjson');
const delta = (sb: Sandbox) => join(lazyDir(sb), 'index-delta.json');

const sorted = (r: { rows: { id: string }[] }) => r.rows.map((x) => x.id).sort();

async function refresh(sb: Sandbox, detail = false) {
  const reader = new TaskReader(sb.dir);
  try {
    return detail
      ? await refreshIndex(sb.dir, lazyDir(sb), reader, true)
      : await refreshIndex(sb.dir, lazyDir(sb), reader);
  } finally {
    reader.close();
  }
}

async function seeded(t: Test) {
  const sb = sandbox();
  t.teardown(() => sb.cleanup());
  const l = cli(sb);
  const ids = [await l.create('first'), await l.create('second'), await l.create('third')];
  return { sb, l, ids };
}

t.test('a comment lands in the delta; the base is not rewritten; the next list reads nothing', async (t) => {
  const { sb, l, ids } = await seeded(t);
  t.equal((await refresh(sb)).rows.length, 3);
  const before = readFileSync(base(sb), 'utf8');
  t.equal((await l('comment', ids[1]!, '-m', 'hello')).code, 0);
  const r = await refresh(sb, true);
  t.equal(r.reread, 1, 'only the commented task is read again');
  t.equal(readFileSync(base(sb), 'utf8'), before, 'the base is untouched');
  const d = JSON.parse(readFileSync(delta(sb), 'utf8'));
  t.same(
    d.rows.map((x: string[]) => x[0]),
    [ids[1]],
    'the delta holds the changed row',
  );
  const shown = (await l.json('show', ids[1]!)).value;
  t.equal(r.rows.find((x) => x.id === ids[1])!.updated_at, shown.updated_at, 'and it is current');
  const quick = await refresh(sb);
  t.equal(quick.reread, 0, 'the fingerprint matches: nothing is read');
  t.equal(quick.rows.find((x) => x.id === ids[1])!.updated_at, shown.updated_at, 'the delta row is laid over the base');
  gitSync(sb.dir, sb.env, ['update-ref', '-d', `refs/lazy/tasks/${ids[0]}`]);
  t.same(sorted(await refresh(sb)), [ids[1], ids[2]].sort(), 'a vanished ref drops its row');
  t.same(sorted(await refresh(sb)), [ids[1], ids[2]].sort(), 'and stays dropped once the fingerprint matches');
  t.same(JSON.parse(readFileSync(delta(sb), 'utf8')).gone, [ids[0]], 'the delta names it gone');
  t.same(sorted(await refresh(sb, true)), [ids[1], ids[2]].sort(), 'the detail rows agree');
});

t.test('deleted or damaged files are rebuilt from the refs', async (t) => {
  const { sb, l, ids } = await seeded(t);
  await refresh(sb);
  rmSync(base(sb));
  t.same(sorted(await refresh(sb)), [...ids].sort(), 'a deleted base is rebuilt');
  // A damaged line under a fingerprint that still matches: the cache starts again.
  const text = readFileSync(base(sb), 'utf8').split('\n');
  text[3] = text[3]!.slice(0, 30);
  writeFileSync(base(sb), text.join('\n'));
  const r = await refresh(sb);
  t.same(sorted(r), [...ids].sort(), 'a damaged line is rebuilt');
  t.same(
    ids.map((id) => r.rows.find((x) => x.id === id)!.goal),
    ['first', 'second', 'third'],
  );
  rmSync(delta(sb));
  t.equal((await refresh(sb)).rows.length, 3, 'a deleted delta only costs a compare');
  t.equal((await l('list')).code, 0);
  t.ok(existsSync(delta(sb)));
});

t.test('a delta written over another base is ignored', async (t) => {
  const { sb, ids } = await seeded(t);
  await refresh(sb);
  const d = JSON.parse(readFileSync(delta(sb), 'utf8'));
  const stale = JSON.parse(readFileSync(base(sb), 'utf8').split('\n')[2]!.replace(/,$/, ''));
  stale[5] = 'a goal no ref ever had';
  writeFileSync(delta(sb), JSON.stringify({ ...d, base: 'another-base', rows: [stale] }));
  const r = await refresh(sb);
  t.same(
    ids.map((id) => r.rows.find((x) => x.id === id)!.goal),
    ['first', 'second', 'third'],
    'the rows are the refs',
  );
  t.equal(r.rows.length, 3);
});

t.test('a row whose stored status is not wanted is never parsed', async (t) => {
  const { sb, l, ids } = await seeded(t);
  t.equal((await l('close', ids[2]!)).code, 0);
  await refresh(sb);
  const reader = new TaskReader(sb.dir);
  t.teardown(() => reader.close());
  const r = await refreshIndex(sb.dir, lazyDir(sb), reader, false, (s) => s === 'abandoned', true);
  t.same(
    r.rows.map((x) => x.id),
    [ids[2]],
    'only the abandoned one',
  );
  t.same(
    (await l.json('list', '--status', 'abandoned')).value.map((x: { id: string }) => x.id),
    [ids[2]],
  );
});

t.test('a limit in creation order stops reading the base early', async (t) => {
  const { sb, l, ids } = await seeded(t);
  const fourth = await l.create('fourth');
  await refresh(sb);
  t.equal((await l('comment', ids[2]!, '-m', 'changed')).code, 0);
  await refresh(sb);
  const reader = new TaskReader(sb.dir);
  t.teardown(() => reader.close());
  const r = await refreshIndex(sb.dir, lazyDir(sb), reader, false, undefined, false, 1);
  t.equal(r.reread, 0, 'the fingerprint matched');
  t.ok(r.rows.length < 4, `read ${r.rows.length} of 4 rows`);
  t.same(
    r.rows.map((x) => x.id).sort(),
    [ids[0]!, ids[2]!].sort(),
    'the oldest row, and the delta row laid over the base',
  );
  t.notOk(r.rows.some((x) => x.id === fourth));
  t.same(
    (await l.json('list', '--limit', '2')).value.map((x: { id: string }) => x.id),
    [ids[0], ids[1]],
    'list --limit',
  );
});

t.test('a pull primes the index; a later change pulled in is seen', async (t) => {
  const tm = team(2, 'lazy-listing');
  t.teardown(tm.cleanup);
  const [a, b] = tm.clones.map((c) => cli(c));
  const x = await a!.create('made on a');
  t.equal((await a!('push')).code, 0);
  t.equal((await b!('list')).code, 0);
  t.equal((await b!('pull')).code, 0);
  t.same(
    (await b!.json('list')).value.map((r: { id: string }) => r.id),
    [x],
    'pulled and listed',
  );
  t.equal((await a!('comment', x, '-m', 'again')).code, 0);
  t.equal((await a!('push')).code, 0);
  t.equal((await b!('pull')).code, 0);
  const want = (await a!.json('show', x)).value.updated_at;
  t.equal((await b!.json('list')).value[0].updated_at, want, 'the pulled change is in the list');
  t.equal((await refresh(tm.clones[1]!)).reread, 0, 'and nothing needed a re-read');
});
