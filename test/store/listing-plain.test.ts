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
import { indexedIds, refreshPlain } from '../../lib/store/listing/index.js';
import { firstRows, patch, plainRows, plainText, type PlainItem } from '../../lib/store/listing/plain.js';
import { fromTuple, type Tuple } from '../../lib/store/listing/rows.js';
import { pipedLine, PIPED_LINES } from '../../lib/output/piped-line.js';
import { renderList } from '../../lib/output/tasks.js';
import { renderedText } from '../../lib/output/emit.js';
import type { Style } from '../../lib/output/color.js';
import type { ListItem } from '../../lib/ops/list.js';
import { refChanges, RefsNow } from '../../lib/store/listing/refs.js';
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
  const known = () => indexedIds(lazyDir(sb)).sort();
  t.same(known(), [...ids].sort(), 'completion ids: the rows of the base');
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
  t.same(known(), [...ids, fourth].sort(), 'completion ids: a row of the delta too');
  t.same(indexedIds(lazyDir(sb), ids[0]!.slice(0, 7)), [ids[0]], 'a prefix: the base rows that start with it');
  t.same(indexedIds(lazyDir(sb), fourth), [fourth], 'and the delta rows');
  t.same(indexedIds(lazyDir(sb), 'zzzzzzzzz'), [], 'none start with it: none');

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
  t.same(known(), [ids[0]!, ids[2]!, fourth].sort(), 'completion ids: not a deleted one');

  // A task whose ref points at a blob: warned about and skipped, the rest listed.
  const blob = gitSync(sb.dir, sb.env, ['hash-object', '-w', '--stdin'], 'not a commit').trim();
  gitSync(sb.dir, sb.env, ['update-ref', `refs/lazy/tasks/${fourth}`, blob]);
  const r = await l('list');
  t.match(r.stderr, new RegExp(`task ${fourth} is unreadable and was skipped`));
  t.notOk(r.stdout.includes(fourth));
  t.ok(r.stdout.includes(ids[2]!));
  t.same(known(), [ids[0]!, ids[2]!, fourth].sort(), 'completion ids: an unreadable task is still one');
  t.same(indexedIds(join(sb.home, 'nowhere')), [], 'no index: no ids');
});

t.test('a missing or foreign plain file, or no stored refs text, costs a rebuild, never a wrong row', async (t) => {
  const sb = sandbox();
  t.teardown(() => sb.cleanup());
  const l = cli(sb);
  const ids = [await l.create('one'), await l.create('two')];
  await agree(t, l, 'built');
  const reader0 = new TaskReader(sb.dir);
  const stored = await refreshPlain(sb.dir, lazyDir(sb), reader0, () => true, PIPED_LINES).finally(() =>
    reader0.close(),
  );
  // Consecutive plain rows come back as one run of the stored lines.
  t.equal(stored?.items.length, 1, 'one run');
  const run = String(stored?.items[0]).split('\n');
  t.same(
    run,
    [0, 1].map((i) => `${ids[i]}\tbacklog\t${run[i]?.split('\t')[2]}\t\t${['one', 'two'][i]}`),
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
  const got = await refreshPlain(sb.dir, lazyDir(sb), reader, () => true, PIPED_LINES);
  t.same(
    got?.items.map((x) => (typeof x === 'string' ? x.split('\t')[0] : x.id)),
    ids,
    'both rows, from the delta laid over the plain file',
  );
});

t.test('the plain file is keyed on the line it holds, and written from a base another caller wrote', async (t) => {
  const sb = sandbox();
  t.teardown(() => sb.cleanup());
  const l = cli(sb);
  await l.create('one');
  await l.create('two');
  t.equal((await l('list', '--json')).code, 0);
  t.notOk(existsSync(plainFile(sb)), 'the full path writes the base alone: it has no lines to write');
  const base = join(lazyDir(sb), 'index.ndjson');
  const baseAt = statSync(base).mtimeMs;
  await agree(t, l, 'after a --json list');
  t.ok(existsSync(plainFile(sb)), 'the piped list writes the plain file');
  t.equal(statSync(base).mtimeMs, baseAt, 'from the base as stored: the base is not rewritten');
  const [head, ...rest] = readFileSync(plainFile(sb), 'utf8').split('\n');
  const key = JSON.parse(head!).version;
  t.equal(key.split('+')[1], PIPED_LINES.version, "the file's key names the line's version");
  writeFileSync(
    plainFile(sb),
    [head!.replace(key, `${key.split('+')[0]}+another`), ...rest.map((x) => `${x}!`)].join('\n'),
  );
  await agree(t, l, 'a plain file of another line');
  t.equal(JSON.parse(readFileSync(plainFile(sb), 'utf8').split('\n')[0]!).version, key, 'written again, for this line');
});

// Rows as the plain file stores them, in one temporary index folder: plain rows, a live (working) one between.
const tuple = (id: string, status: string, goal = `goal ${id}`): Tuple => [
  id,
  'f'.repeat(40),
  status as Tuple[2],
  `2026-01-01T00:00:0${id.at(-1)}.000Z`,
  '2026-01-02T00:00:00.000Z',
  goal,
  [],
  null,
  null,
  null,
  0,
  null,
];

function plainDir(t: Test, rows: Tuple[]) {
  const dir = mkdtempSync(join(tmpdir(), 'lazy-plain-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'index-plain.tsv'), plainText('g', rows.map(fromTuple), [], PIPED_LINES));
  return dir;
}
const overlay = (rows: Tuple[] = [], out: string[] = []) => ({
  gen: 'g',
  rows,
  out: new Set(out),
});
const lineOf = (t: Tuple) => pipedLine(fromTuple(t));

t.test(
  'plain rows come as runs of stored lines, broken by a live row, an unkept status and a changed row',
  async (t) => {
    const rows = ['a001', 'a002', 'a003', 'a004', 'a005'].map((id, i) =>
      tuple(id, i === 2 ? 'working' : i === 3 ? 'closed' : 'backlog'),
    );
    const dir = plainDir(t, rows);
    const all = plainRows(dir, overlay(), () => true, PIPED_LINES)!;
    t.same(
      all.items.map((x) => (typeof x === 'string' ? x : x.id)),
      [`${lineOf(rows[0]!)}\n${lineOf(rows[1]!)}`, 'a003', `${lineOf(rows[3]!)}\n${lineOf(rows[4]!)}`],
      'two runs around the live row',
    );
    const open = plainRows(dir, overlay(), (s) => s !== 'closed', PIPED_LINES)!;
    t.same(
      open.items.map((x) => (typeof x === 'string' ? x : x.id)),
      [`${lineOf(rows[0]!)}\n${lineOf(rows[1]!)}`, 'a003', lineOf(rows[4]!)],
      'an unkept status ends a run',
    );
    const moved = tuple('a002', 'blocked', 'moved on');
    const over = plainRows(dir, overlay([moved], ['a005']), () => true, PIPED_LINES)!;
    t.same(
      over.items.map((x) => (typeof x === 'string' ? x : `${x.id}:${x.status}`)),
      [lineOf(rows[0]!), 'a002:blocked', 'a003:working', lineOf(rows[3]!)],
      'a changed row replaces its line, a gone one is left out',
    );
  },
);

t.test('patch splits only the run that holds a re-read row', async (t) => {
  const rows = ['b001', 'b002', 'b003'].map((id) => tuple(id, 'backlog'));
  const items = [rows.map(lineOf).join('\n'), fromTuple(tuple('b004', 'working'))];
  const few = { from: 'x', rows: [tuple('b002', 'blocked')], bad: [], gone: ['b004'] };
  const got = patch({ items: [...items], bad: [] }, few, () => true)!;
  t.same(
    got.items.map((x) => (typeof x === 'string' ? x : `${x.id}:${x.status}`)),
    [lineOf(rows[0]!), 'b002:blocked', lineOf(rows[2]!)],
  );
  const hidden = patch({ items: [...items], bad: [] }, few, (s) => s !== 'blocked')!;
  t.same(hidden.items, [lineOf(rows[0]!), lineOf(rows[2]!)], 'a row the filter no longer keeps leaves its run');
  const ends = { from: 'x', rows: [tuple('b001', 'blocked'), tuple('b003', 'ready')], bad: [], gone: [] };
  t.same(
    patch({ items: [...items], bad: [] }, ends, () => true)!.items.map((x) =>
      typeof x === 'string' ? x : `${x.id}:${x.status}`,
    ),
    ['b001:blocked', lineOf(rows[1]!), 'b003:ready', 'b004:working'],
    'the first and last lines of a run',
  );
  const both = { from: 'x', rows: [tuple('b003', 'ready'), tuple('b002', 'ready')], bad: [], gone: [] };
  t.same(
    patch({ items: [...items], bad: [] }, both, () => true)!.items.map((x) =>
      typeof x === 'string' ? x : `${x.id}:${x.status}`,
    ),
    [lineOf(rows[0]!), 'b002:ready', 'b003:ready', 'b004:working'],
    "two lines side by side, in the run's order",
  );
  const unseen = { ...few, rows: [tuple('b009', 'backlog')] };
  t.equal(
    patch({ items: [...items], bad: [] }, unseen, () => true),
    undefined,
    'a row not listed before: a fresh pass',
  );
});

t.test('--limit counts the rows inside a run', async (t) => {
  const run = ['c1', 'c2', 'c3'].join('\n');
  const row = fromTuple(tuple('c004', 'working'));
  const ids = (items: PlainItem[]) => items.flatMap((x) => (typeof x === 'string' ? x.split('\n') : [x.id]));
  t.same(ids(firstRows([run, row], 2)), ['c1', 'c2']);
  t.same(ids(firstRows([run, row], 3)), ['c1', 'c2', 'c3']);
  t.same(ids(firstRows([run, row], 4)), ['c1', 'c2', 'c3', 'c004']);
  t.same(ids(firstRows([run, row], 9)), ['c1', 'c2', 'c3', 'c004']);
  t.same(ids(firstRows([row, 'c5'], 1)), ['c004']);
  t.same(firstRows([run], 0), []);
});

t.test(
  'a stored line is escaped when written, so the list prints it unscanned and nothing drives the terminal',
  async (t) => {
    const evil = tuple('d001', 'backlog', 'red \u001b[31mtext\u0085 and\ta tab');
    const dir = plainDir(t, [evil]);
    const [line] = plainRows(dir, overlay(), () => true, PIPED_LINES)!.items as string[];
    t.notMatch(line, /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/, 'no control character stored');
    t.match(line, 'red \\u001b[31mtext\\u0085 and a tab', 'each one a printable escape; the tab a space');
    const style: Style = { tty: false, color: false };
    const live = fromTuple(Object.assign([...evil], { 2: 'working' }) as Tuple);
    const text = renderedText([line!, live], (r) => renderList(r as ListItem[]), style);
    t.match(text, /^d001\tbacklog\t.*\nd001\tworking/, 'both rows printed');
    t.notMatch(text, /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/, 'nor printed, for a rendered row either');
  },
);
