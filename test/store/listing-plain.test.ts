import t, { type Test } from 'tap';
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli, gitSync, sandbox, type Sandbox } from '../helpers/env.js';
import { refreshPlain } from '../../lib/store/listing.js';
import { refChanges, RefsNow } from '../../lib/store/listing-refs.js';
import { TaskReader } from '../../lib/store/read.js';

// The plain path of `lazy list`: lines copied from the index's plain file, the few refs that moved since re-read
// by comparing for-each-ref texts. Whatever the fast path prints, the full path (--json) must agree with it.

const lazyDir = (sb: Sandbox) => join(sb.dir, '.git', 'lazy');
const plainFile = (sb: Sandbox) => join(lazyDir(sb), 'index-plain.tsv');

/** The piped list and the JSON list (the full path) say the same: ids in order, status and update time per row. */
async function agree(t: Test, l: ReturnType<typeof cli>, what: string, ...args: string[]) {
  const text = await l('list', ...args);
  t.equal(text.code, 0, text.stderr);
  const lines = text.stdout.split('\n').filter((x) => x && !x.startsWith('no tasks'));
  const json = (await l.json<{ id: string; status: string; updated_at: string; goal: string }[]>('list', ...args))
    .value;
  t.same(
    lines.map((x) => x.split('\t')[0]),
    json.map((r) => r.id),
    `${what}: the same rows in the same order`,
  );
  for (const [i, r] of json.entries()) {
    const [, status, updated, , goal] = lines[i]!.split('\t');
    if (status?.split(' ')[0] !== r.status || updated !== r.updated_at || goal !== r.goal)
      t.fail(`${what}: row ${r.id} reads '${lines[i]}'`, { json: r });
  }
  return lines;
}

const ref = (i: number, tip: number) =>
  `${tip.toString(16).padStart(40, '0')} refs/lazy/tasks/${String(i).padStart(8, '0')}\n`;

t.test('the refs that moved are found by comparing two for-each-ref texts', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'lazy-refs-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  let seed = 7;
  let wrong = 0;
  const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
  for (let round = 0; round < 200; round++) {
    const before = new Map<number, number>();
    for (let i = 0; i < 50 + rand(200); i++) before.set(rand(400), rand(1000));
    const after = new Map(before);
    const keys = [...before.keys()];
    for (let k = 0; k < 1 + rand(4); k++) {
      const op = rand(3);
      if (op === 0 && keys.length) after.set(keys[rand(keys.length)]!, 1000 + rand(1000)); // a tip moved
      if (op === 1) after.set(400 + rand(100), rand(1000)); // a new ref
      if (op === 2 && keys.length) after.delete(keys[rand(keys.length)]!); // a ref gone
    }
    const text = (m: Map<number, number>) =>
      [...m]
        .sort((a, b) => a[0] - b[0])
        .map(([i, tip]) => ref(i, tip))
        .join('');
    const was = new RefsNow(Buffer.from(text(before)), undefined);
    await was.adopt(dir);
    const ch = refChanges(dir, was.fingerprint, new RefsNow(Buffer.from(text(after)), undefined));
    const id = (i: number) => String(i).padStart(8, '0');
    const moved = [...after].filter(([i, tip]) => before.get(i) !== tip).map(([i]) => id(i));
    const gone = [...before.keys()].filter((i) => !after.has(i)).map(id);
    if (
      !ch ||
      ch.moved
        .map((r) => r.id)
        .sort()
        .join() !== moved.sort().join() ||
      ch.gone.sort().join() !== gone.sort().join()
    )
      (wrong++, t.comment(`round ${round}`, { found: ch, moved, gone }));
  }
  t.equal(wrong, 0, '200 random rounds of moved, new and gone refs: each found exactly');
  t.same(readdirSync(dir).length, 1, 'one stored copy: adopting one drops the others');
  t.equal(
    refChanges(dir, 'another', new RefsNow(Buffer.from(''), undefined)),
    undefined,
    'none stored for that fingerprint',
  );
});

t.test('the piped list copies stored lines and agrees with the full path through every kind of change', async (t) => {
  const sb = sandbox();
  t.teardown(() => sb.cleanup());
  const l = cli(sb);
  const ids = [
    await l.create('first', '--tag', 'a'),
    await l.create('second'),
    await l.create('third', '--accept', 'done'),
  ];
  let lines = await agree(t, l, 'built');
  t.match(
    lines[0],
    new RegExp(`^${ids[0]}\tbacklog\t\\d{4}-\\d\\d-\\d\\dT[^\t]+Z\ta\tfirst$`),
    'id, status, ISO time, tags, goal',
  );

  const kept = readFileSync(plainFile(sb), 'utf8');
  const baseAt = statSync(join(lazyDir(sb), 'index.ndjson')).mtimeMs;
  t.equal((await l('comment', ids[1]!, '-m', 'hello')).code, 0);
  lines = await agree(t, l, 'after a comment');
  t.equal(readFileSync(plainFile(sb), 'utf8'), kept, 'the plain file is not rewritten for one comment');
  t.equal(statSync(join(lazyDir(sb), 'index.ndjson')).mtimeMs, baseAt, 'nor the base');

  t.equal((await l('close', ids[0]!)).code, 0);
  lines = await agree(t, l, 'after a close');
  t.notOk(
    lines.some((x) => x.startsWith(ids[0]!)),
    'a closed task leaves the default list',
  );
  await agree(t, l, 'with --all', '--all');
  await agree(t, l, 'with --status', '--status', 'abandoned');

  const fourth = await l.create('fourth');
  lines = await agree(t, l, 'after a create');
  t.ok(lines.at(-1)!.startsWith(fourth), 'a new task comes last');

  t.equal((await l('queue', ids[2]!, '--priority', '3')).code, 0);
  lines = await agree(t, l, 'after a queue');
  t.match(
    lines.find((x) => x.startsWith(ids[2]!)),
    /\tbacklog \(queued, priority 3\)\t/,
    'a live status cell is rendered, not stored',
  );

  gitSync(sb.dir, sb.env, ['update-ref', '-d', `refs/lazy/tasks/${ids[1]}`]);
  lines = await agree(t, l, 'after a ref is deleted');
  t.notOk(lines.some((x) => x.startsWith(ids[1]!)));

  // A task whose ref points at a blob: warned about and skipped, the rest listed.
  const blob = gitSync(sb.dir, sb.env, ['hash-object', '-w', '--stdin'], 'not a commit').trim();
  gitSync(sb.dir, sb.env, ['update-ref', `refs/lazy/tasks/${fourth}`, blob]);
  const r = await l('list');
  t.match(r.stderr, new RegExp(`task ${fourth} is unreadable and was skipped`));
  t.notOk(r.stdout.includes(fourth));
  t.ok(r.stdout.includes(ids[2]!));
});

t.test('a missing or foreign plain file, or no stored refs text, costs a rebuild, never a wrong row', async (t) => {
  const sb = sandbox();
  t.teardown(() => sb.cleanup());
  const l = cli(sb);
  const ids = [await l.create('one'), await l.create('two')];
  await agree(t, l, 'built');
  const reader0 = new TaskReader(sb.dir);
  const stored = await refreshPlain(sb.dir, lazyDir(sb), reader0, () => true).finally(() => reader0.close());
  t.same(
    stored?.items,
    [0, 1].map((i) => `${ids[i]}\tbacklog\t${stored?.items[i]?.toString().split('\t')[2]}\t\t${['one', 'two'][i]}`),
    'stored lines, copied',
  );
  rmSync(plainFile(sb));
  await agree(t, l, 'plain file deleted');
  t.ok(statSync(plainFile(sb)).size > 0, 'and written again');

  const text = readFileSync(plainFile(sb), 'utf8').split('\n');
  writeFileSync(plainFile(sb), [text[0]!.replace(/"gen":"[^"]+"/, '"gen":"another"'), ...text.slice(1)].join('\n'));
  t.equal((await l('comment', ids[0]!, '-m', 'x')).code, 0);
  await agree(t, l, 'plain file of another base');

  // What a list killed while git wrote would leave: removed once old, never while a live list may own it.
  const stale = join(lazyDir(sb), 'refs-killed.tmp');
  const fresh = join(lazyDir(sb), 'refs-running.tmp');
  writeFileSync(stale, 'x');
  writeFileSync(fresh, 'x');
  utimesSync(stale, new Date(Date.now() - 3_600_000), new Date(Date.now() - 3_600_000));
  t.equal((await l('comment', ids[1]!, '-m', 'w')).code, 0);
  await agree(t, l, 'with spills lying around');
  t.notOk(existsSync(stale), 'an hour-old spill is removed');
  t.ok(existsSync(fresh), 'a fresh one is left to its list');
  rmSync(fresh);

  for (const n of readdirSync(lazyDir(sb))) if (n.startsWith('index-refs-')) rmSync(join(lazyDir(sb), n));
  t.equal((await l('comment', ids[1]!, '-m', 'y')).code, 0);
  await agree(t, l, 'no stored refs text');
  t.equal(readdirSync(lazyDir(sb)).filter((n) => n.startsWith('index-refs-')).length, 1, 'stored again');
  t.same(
    readdirSync(lazyDir(sb)).filter((n) => n.endsWith('.tmp')),
    [],
    'no spilled for-each-ref output is left behind',
  );

  const reader = new TaskReader(sb.dir);
  t.teardown(() => reader.close());
  const got = await refreshPlain(sb.dir, lazyDir(sb), reader, () => true);
  t.same(
    got?.items.map((x) => (typeof x === 'string' ? x.split('\t')[0] : x.id)),
    ids,
    'both rows, from the delta laid over the plain file',
  );
});
