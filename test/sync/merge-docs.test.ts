import t from 'tap';
import { merge3, planMerge, CorruptMerge } from '../../lib/sync/merge-docs.js';
import type { SessionDoc, TaskDoc, TaskDocs } from '../../lib/model/docs.js';
import type { TaskRead } from '../../lib/store/read.js';
import type { TreeEntry } from '../../lib/store/objects.js';
import { docs } from '../helpers/docs.js';

// The merge rules of sync: entries merge as the union of their files; the task and session
// records merge field by field against the base; a field both sides changed goes to the
// higher clock, ties to the higher tip. Invariant: the result depends only on the two tips
// and their base, never on which clone computes it.

type Rec = Record<string, unknown>;

t.test('merge3: one row per field shape', async (t) => {
  const rows: [pins: string, base: Rec | undefined, first: Rec, second: Rec, doc: Rec, conflicts: number][] = [
    ['nobody changed it', { g: 1 }, { g: 1 }, { g: 1 }, { g: 1 }, 0],
    ['only the first side changed it', { g: 1 }, { g: 2 }, { g: 1 }, { g: 2 }, 0],
    ['only the second side changed it', { g: 1 }, { g: 1 }, { g: 3 }, { g: 3 }, 0],
    ['both made the same change', { g: 1 }, { g: 4 }, { g: 4 }, { g: 4 }, 0],
    ['both changed it differently: the first wins, a conflict is named', { g: 1 }, { g: 2 }, { g: 3 }, { g: 2 }, 1],
    [
      'different fields changed on each side both land',
      { g: 1, h: 1 },
      { g: 2, h: 1 },
      { g: 1, h: 3 },
      { g: 2, h: 3 },
      0,
    ],
    ['a field only one side added', { g: 1 }, { g: 1, n: 'x' }, { g: 1 }, { g: 1, n: 'x' }, 0],
    ['no base: equal fields merge', undefined, { g: 1 }, { g: 1 }, { g: 1 }, 0],
    ['no base: different fields conflict', undefined, { g: 1 }, { g: 2 }, { g: 1 }, 1],
    [
      'objects compare as whole values',
      { o: { a: 1, b: 1 } },
      { o: { a: 2, b: 1 } },
      { o: { a: 1, b: 2 } },
      { o: { a: 2, b: 1 } },
      1,
    ],
    [
      'lists both changed merge as a union in base, first, second order',
      { l: ['a'] },
      { l: ['a', 'b'] },
      { l: ['a', 'c'] },
      { l: ['a', 'b', 'c'] },
      0,
    ],
    [
      'an item either side removed from the base stays removed',
      { l: ['a', 'b'] },
      { l: ['a', 'b', 'c'] },
      { l: ['b', 'd'] },
      { l: ['b', 'c', 'd'] },
      0,
    ],
    ['lists with no base merge as a union', {}, { l: ['x', 'y'] }, { l: ['y', 'z'] }, { l: ['x', 'y', 'z'] }, 0],
    ['a list against a scalar base is a conflict', { l: 's' }, { l: ['a'] }, { l: ['b'] }, { l: ['a'] }, 1],
    ['lists never hold an item twice', { l: [] }, { l: ['a', 'a'] }, { l: ['a', 'b'] }, { l: ['a', 'b'] }, 0],
    ['the clock is the higher of the two, never a conflict', { clock: 1 }, { clock: 3 }, { clock: 5 }, { clock: 5 }, 0],
    [
      'the clock is the higher even when the first side holds it',
      { clock: 1 },
      { clock: 7 },
      { clock: 1 },
      { clock: 7 },
      0,
    ],
    ['the clock never goes back below the base', { clock: 5 }, { clock: 5 }, { clock: 2 }, { clock: 5 }, 0],
  ];
  for (const [pins, base, first, second, doc, n] of rows) {
    const m = merge3(base, first, second, 'task');
    t.same(m.doc, doc, `${pins}: the merged record`);
    t.equal(m.conflicts.length, n, `${pins}: ${n} conflict(s)`);
  }
  t.same(
    merge3({ g: 1 }, { g: 2 }, { g: 3 }, 'task').conflicts,
    ['task.g: kept 2, set aside 3'],
    'a conflict names the field and both values',
  );
  t.same(
    merge3({ g: 1 }, { g: 2 }, { g: 3 }, 'session s1').conflicts,
    ['session s1.g: kept 2, set aside 3'],
    'under its label',
  );
  const removed = merge3({ g: 1, h: 1 }, { g: 1 }, { g: 1, h: 1 }, 'task').doc;
  t.equal(removed.h, undefined, 'a field one side removed (the other left it alone) is removed');
});

// --- planMerge over two reads of one task, built in memory -----------------------------

const oid = (s: string) => s.padEnd(40, '0').slice(0, 40);

interface Side {
  task: TaskDoc;
  taskOid: string;
  tip: string;
  entries?: Record<string, Record<string, string>>;
  sessions?: [SessionDoc, string][];
}

function read(s: Side): TaskRead {
  const dirs = new Map<string, TreeEntry[]>();
  for (const [dir, files] of Object.entries(s.entries ?? {}))
    dirs.set(
      dir,
      Object.entries(files).map(([name, o]) => ({ mode: '100644', name, oid: o })),
    );
  if (s.sessions?.length)
    dirs.set(
      'sessions',
      s.sessions.map(([d, o]) => ({ mode: '100644', name: `${d.id}.yaml`, oid: o })),
    );
  const root: TreeEntry[] = [
    { mode: '100644', name: 'task.yaml', oid: s.taskOid },
    ...[...dirs.keys()].map((name) => ({ mode: '40000', name, oid: oid('d' + name) })),
  ];
  const d: TaskDocs = { ...docs({ task: s.task }), tip: s.tip, sessions: (s.sessions ?? []).map(([x]) => x) };
  return { docs: d, snap: { tree: oid('tree' + s.tip), root, dirs } };
}

const baseTask = docs().task;
const task = (more: Partial<TaskDoc>): TaskDoc => ({ ...baseTask, ...more });
const session = (more: Partial<SessionDoc>): SessionDoc => ({
  id: 'sess0001',
  agent: 'fake',
  branch: 'lazy/task0001',
  base: 'main',
  base_commit: 'b'.repeat(40),
  started_at: '2026-01-01T00:00:00.000Z',
  ended_at: null,
  outcome: null,
  clock: 2,
  ...more,
});
const baseRead = read({ task: baseTask, taskOid: oid('t0'), tip: oid('0') });

t.test('planMerge: entries merge as the union of their files', async (t) => {
  const a = read({
    task: baseTask,
    taskOid: oid('t0'),
    tip: oid('a'),
    entries: { turns: { '1.yaml': oid('1'), '2.yaml': oid('2') }, changelog: { 'c1.yaml': oid('c1') } },
  });
  const b = read({
    task: baseTask,
    taskOid: oid('t0'),
    tip: oid('b'),
    entries: { turns: { '1.yaml': oid('1'), '3.yaml': oid('3') }, decisions: { 'd.yaml': oid('d') } },
  });
  const p = planMerge(baseRead, a, b);
  t.same(
    Object.fromEntries(p.files.get('turns')!),
    { '1.yaml': oid('1'), '2.yaml': oid('2'), '3.yaml': oid('3') },
    'turns: the union',
  );
  t.same(Object.fromEntries(p.files.get('changelog')!), { 'c1.yaml': oid('c1') }, 'changelog from one side');
  t.same(Object.fromEntries(p.files.get('decisions')!), { 'd.yaml': oid('d') }, 'decisions from the other');
  t.notOk(p.files.has('violations'), 'an empty directory is not written');
  t.notOk(p.files.has('sessions'), 'no sessions, no sessions directory');
  t.same(p.conflicts, []);
  t.same(p.rewrite, [], 'nothing to rewrite');
  t.same(Object.fromEntries(p.files.get('')!), { 'task.yaml': oid('t0') }, 'the unchanged task record is reused');
});

t.test('planMerge: the same entry with different contents is corruption, named by path', async (t) => {
  const a = read({ task: baseTask, taskOid: oid('t0'), tip: oid('a'), entries: { turns: { 'x.yaml': oid('1') } } });
  const b = read({ task: baseTask, taskOid: oid('t0'), tip: oid('b'), entries: { turns: { 'x.yaml': oid('2') } } });
  t.throws(
    () => planMerge(baseRead, a, b),
    new CorruptMerge('turns/x.yaml', 'turns/x.yaml has different contents on the two sides'),
  );
  try {
    planMerge(baseRead, a, b);
  } catch (e) {
    t.ok(e instanceof CorruptMerge, 'a CorruptMerge');
    t.equal((e as CorruptMerge).path, 'turns/x.yaml', 'its path');
  }
});

t.test('planMerge: the task record, field by field', async (t) => {
  const rows: [
    pins: string,
    a: Side,
    b: Side,
    goal: string,
    tags: string[],
    reuse: string | null,
    conflicts: number,
  ][] = [
    [
      'one side changed the goal: its record (and blob) is reused',
      { task: task({ goal: 'new', clock: 5 }), taskOid: oid('ta'), tip: oid('a') },
      { task: baseTask, taskOid: oid('t0'), tip: oid('b') },
      'new',
      [],
      oid('ta'),
      0,
    ],
    [
      'each side changed another field: a rewritten record holds both',
      { task: task({ goal: 'new', clock: 5 }), taskOid: oid('ta'), tip: oid('a') },
      { task: task({ tags: ['x'], clock: 4 }), taskOid: oid('tb'), tip: oid('b') },
      'new',
      ['x'],
      null,
      0,
    ],
    [
      'both changed the goal: the higher clock wins',
      { task: task({ goal: 'from a', clock: 4 }), taskOid: oid('ta'), tip: oid('a') },
      { task: task({ goal: 'from b', clock: 6 }), taskOid: oid('tb'), tip: oid('b') },
      'from b',
      [],
      oid('tb'),
      1,
    ],
    [
      'both changed the goal at the same clock: the higher tip wins',
      { task: task({ goal: 'from a', clock: 4 }), taskOid: oid('ta'), tip: oid('e') },
      { task: task({ goal: 'from b', clock: 4 }), taskOid: oid('tb'), tip: oid('b') },
      'from a',
      [],
      oid('ta'),
      1,
    ],
    [
      'tags both sides added merge as a union',
      { task: task({ tags: ['a'], clock: 4 }), taskOid: oid('ta'), tip: oid('a') },
      { task: task({ tags: ['b'], clock: 3 }), taskOid: oid('tb'), tip: oid('b') },
      baseTask.goal,
      ['a', 'b'],
      null,
      0,
    ],
  ];
  for (const [pins, sa, sb, goal, tags, reuse, n] of rows) {
    for (const [label, x, y] of [
      ['a, b', sa, sb],
      ['b, a', sb, sa],
    ] as const) {
      const p = planMerge(baseRead, read(x), read(y));
      t.equal(p.task.goal, goal, `${pins} (${label}): goal`);
      t.same(p.task.tags, tags, `${pins} (${label}): tags`);
      t.equal(p.task.clock, Math.max(sa.task.clock, sb.task.clock), `${pins} (${label}): the higher clock`);
      t.equal(p.conflicts.length, n, `${pins} (${label}): ${n} conflict(s)`);
      if (reuse) {
        t.same(Object.fromEntries(p.files.get('')!), { 'task.yaml': reuse }, `${pins} (${label}): blob reused`);
        t.equal(p.rewrite.length, 0, `${pins} (${label}): nothing rewritten`);
      } else {
        t.same(Object.fromEntries(p.files.get('')!), {}, `${pins} (${label}): no blob to reuse`);
        t.same(
          p.rewrite.map((r) => [r.dir, r.name, r.kind]),
          [['', 'task.yaml', 'task']],
          `${pins} (${label}): the task record is rewritten`,
        );
        t.same(p.rewrite[0]!.doc, p.task, `${pins} (${label}): with the merged record`);
      }
    }
  }
});

t.test('planMerge: session records', async (t) => {
  const s0 = session({});
  const base = read({ task: baseTask, taskOid: oid('t0'), tip: oid('0'), sessions: [[s0, oid('s0')]] });
  const side = (tip: string, sessions: [SessionDoc, string][]) =>
    read({ task: baseTask, taskOid: oid('t0'), tip, sessions });

  const onlyA = planMerge(baseRead, side(oid('a'), [[s0, oid('s0')]]), side(oid('b'), []));
  t.same(
    Object.fromEntries(onlyA.files.get('sessions')!),
    { 'sess0001.yaml': oid('s0') },
    'a session on one side is kept as is',
  );
  t.same(onlyA.rewrite, []);

  const same = planMerge(base, side(oid('a'), [[s0, oid('s0')]]), side(oid('b'), [[s0, oid('s0')]]));
  t.same(Object.fromEntries(same.files.get('sessions')!), { 'sess0001.yaml': oid('s0') }, 'an equal session is reused');

  const ended = session({ ended_at: '2026-01-02T00:00:00.000Z', outcome: 'accepted', clock: 5 });
  const moved = session({ branch: 'lazy/other', clock: 4 });
  for (const [label, x, y] of [
    ['a, b', side(oid('a'), [[ended, oid('sa')]]), side(oid('b'), [[moved, oid('sb')]])],
    ['b, a', side(oid('b'), [[moved, oid('sb')]]), side(oid('a'), [[ended, oid('sa')]])],
  ] as const) {
    const p = planMerge(base, x, y);
    t.same(
      p.rewrite.map((r) => [r.dir, r.name, r.kind]),
      [['sessions', 'sess0001.yaml', 'session']],
      `${label}: a session both sides changed is rewritten`,
    );
    t.match(
      p.rewrite[0]!.doc,
      { ended_at: ended.ended_at, outcome: 'accepted', branch: 'lazy/other', clock: 5 },
      `${label}: with both changes`,
    );
    t.same(p.conflicts, [], `${label}: no conflict`);
    t.same(
      Object.fromEntries(p.files.get('sessions')!),
      {},
      `${label}: the sessions directory is written from the rewrite`,
    );
  }
  const clash = planMerge(
    base,
    side(oid('a'), [[session({ outcome: 'accepted', clock: 5 }), oid('sa')]]),
    side(oid('b'), [[session({ outcome: 'closed', clock: 3 }), oid('sb')]]),
  );
  t.same(
    clash.conflicts,
    ['session sess0001.outcome: kept "accepted", set aside "closed"'],
    'the higher clock keeps its outcome',
  );
});
