import t from 'tap';
import { sandbox, cli, gitSync } from '../helpers/env.js';
import { plantTree, readTaskFiles, withId } from '../helpers/plant.js';

// Bad data planted with plain git: reported precisely, and the rest of the store keeps working.

const bomb =
  [
    'a: &a ["x","x","x","x","x","x","x","x","x"]',
    ...'bcdefghij'
      .split('')
      .map(
        (c, i) =>
          `${c}: &${c} [*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)}]`,
      ),
  ].join('\n') + '\n';

type Corruption = {
  name: string;
  id: string;
  file: string;
  path: RegExp;
  mutate: (files: Record<string, string>) => void;
};

const CASES: Corruption[] = [
  {
    name: 'malformed YAML in task.yaml',
    id: 'bad00001',
    file: 'task.yaml',
    path: /^\/$/,
    mutate: (f) => {
      f['task.yaml'] = 'id: bad00001\ngoal: [unclosed\n';
    },
  },
  {
    name: 'schema-invalid task.yaml (goal is a number)',
    id: 'bad00002',
    file: 'task.yaml',
    path: /^\/goal$/,
    mutate: (f) => {
      f['task.yaml'] = f['task.yaml']!.replace(/^goal: .*$/m, 'goal: 42');
    },
  },
  {
    name: 'an unknown status in a changelog entry',
    id: 'bad00003',
    file: 'changelog/',
    path: /^\/to$/,
    mutate: (f) => {
      const k = Object.keys(f).find((p) => p.startsWith('changelog/'))!;
      f[k] = f[k]!.replace(/^to: .*$/m, 'to: exploded');
    },
  },
  {
    name: 'an alias bomb',
    id: 'bad00004',
    file: 'turns/',
    path: /^\/$/,
    mutate: (f) => {
      const k = Object.keys(f).find((p) => p.startsWith('turns/'))!;
      f[k] = bomb;
    },
  },
  {
    name: 'an oversized document',
    id: 'bad00005',
    file: 'turns/',
    path: /^\/$/,
    mutate: (f) => {
      const k = Object.keys(f).find((p) => p.startsWith('turns/'))!;
      f[k] = f[k]! + `padding: "${'x'.repeat(1_100_000)}"\n`;
    },
  },
  {
    name: 'an entry whose name does not match its content',
    id: 'bad00006',
    file: 'turns/',
    path: /^\/id$/,
    mutate: (f) => {
      const k = Object.keys(f).find((p) => p.startsWith('turns/'))!;
      f[k.replace(/-[0-9a-z]{8}\.yaml$/, '-zzzzzzzz.yaml')] = f[k]!;
      delete f[k];
    },
  },
  {
    name: 'an unexpected file in the task tree',
    id: 'bad00007',
    file: 'evil.sh',
    path: /^\/$/,
    mutate: (f) => {
      f['evil.sh'] = 'rm -rf /\n';
    },
  },
];

t.test('planted corruption is reported and isolated', async (t) => {
  const sb = sandbox();
  t.teardown(sb.cleanup);
  const l = cli(sb);
  const good = await l.create('a healthy task');
  const template = await l.create('template');
  await l('comment', template, '-m', 'a turn to corrupt');
  const base = readTaskFiles(sb, template);
  for (const c of CASES) {
    const files = { ...base, 'task.yaml': withId(base['task.yaml']!, c.id) };
    c.mutate(files);
    plantTree(sb, `refs/lazy/tasks/${c.id}`, files);
  }
  // A ref that points at a blob, not a commit.
  const blob = gitSync(sb.dir, sb.env, ['hash-object', '-w', '--stdin'], 'not a commit\n').trim();
  gitSync(sb.dir, sb.env, ['update-ref', 'refs/lazy/tasks/bad00008', blob]);

  const doctor = await l.json('doctor');
  t.equal(doctor.run.code, 6, 'doctor exits 6 on invalid stored data');
  t.equal(doctor.value.healthy, false);
  const errors = doctor.value.findings.filter((f: any) => f.level === 'error');
  t.equal(errors.length, CASES.length + 1, 'one error per bad task, none for healthy ones');
  for (const c of CASES) {
    const f = errors.find((e: any) => e.details.task === c.id);
    t.ok(f, `${c.name}: reported`);
    if (!f) continue;
    t.equal(f.details.ref, `refs/lazy/tasks/${c.id}`, `${c.name}: names the ref`);
    t.match(f.details.object, /^[0-9a-f]{40}$/, `${c.name}: names the object`);
    t.match(
      f.details.file ?? '',
      c.file === 'changelog/' || c.file === 'turns/' ? new RegExp(`^${c.file}`) : c.file,
      `${c.name}: names the file`,
    );
    t.match(f.details.path, c.path, `${c.name}: names the failing path`);
  }
  t.ok(
    errors.find((e: any) => e.details.task === 'bad00008' && /commit/.test(e.message)),
    'a ref at a blob is reported',
  );

  const list = await l.json('list');
  t.equal(list.run.code, 0, 'list still succeeds');
  t.same(list.value.map((x: any) => x.id).sort(), [good, template].sort(), 'every healthy task is listed');
  for (const c of CASES)
    t.match(list.run.stderr, new RegExp(`warning: task ${c.id} is unreadable`), `list warns about ${c.id} on stderr`);

  for (const c of CASES) {
    const show = await l.json('show', c.id);
    t.equal(show.run.code, 6, `show ${c.id} exits 6`);
    t.equal(show.value.error.code, 'invalid_data');
    t.equal(show.value.error.details.ref, `refs/lazy/tasks/${c.id}`);
    const comment = await l.json('comment', c.id, '-m', 'x');
    t.equal(comment.run.code, 6, `a write aimed at ${c.id} exits 6 and writes nothing`);
  }
  t.equal((await l('comment', good, '-m', 'still fine')).code, 0, 'healthy tasks stay writable');
  t.equal((await l.json('show', good)).value.turns.length, 1);
});
