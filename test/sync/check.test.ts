import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { cli, gitSync, type Sandbox } from '../helpers/env.js';
import { team } from '../helpers/team.js';
import { plantComments, plantTree, readTaskFiles, violationYaml, withId } from '../helpers/plant.js';
import { concurrent } from '../helpers/concurrent.js';

// What a pull takes and a push sends is checked the same way: rewritten histories,
// oversized tasks, stored values that would drive git or the terminal, and records that
// fail their schema are refused, named and never merged or spread.

const git = (sb: Sandbox, ...args: string[]) => gitSync(sb.dir, sb.env, args).trim();
const remoteRefs = (remote: string) =>
  gitSync(remote, process.env, ['for-each-ref', '--format=%(refname)', 'refs/lazy/'])
    .trim()
    .split('\n')
    .filter(Boolean);

const test = concurrent(4);

test('pull refuses a remote task holding more entries than the hard limit', async (t) => {
  const tm = team(2);
  t.teardown(tm.cleanup);
  const [a, b] = tm.clones as [Sandbox, Sandbox];
  const la = cli(a);
  const id = await la.create('too long to travel');
  t.equal((await la('comment', id, '-m', 'first')).code, 0);
  plantComments(a, id, 6000);
  gitSync(a.dir, a.env, ['push', '-q', 'origin', `refs/lazy/tasks/${id}:refs/lazy/tasks/${id}`]);
  const p = await cli(b).json('pull');
  t.match(JSON.stringify(p.value), new RegExp(`has 6002 entries, more than 6000`));
  t.equal((await cli(b).json('show', id)).run.code, 3, 'the task did not arrive');
});

test('remote data can neither drive git options nor the terminal, nor bloat a pull', async (t) => {
  const tm = team(2);
  t.teardown(tm.cleanup);
  const [a, b] = tm.clones.map((c) => cli(c));
  const id = await a!.create('template');
  await a!('push');
  const seed = tm.clones[0]!;
  const files = readTaskFiles(seed, id);
  const plant = (bad: string, extra: Record<string, string>, edit = (s: string) => s) => {
    plantTree(seed, `refs/lazy/tasks/${bad}`, {
      ...files,
      'task.yaml': edit(withId(files['task.yaml']!, bad)),
      ...extra,
    });
    gitSync(seed.dir, seed.env, ['push', '-q', 'origin', `refs/lazy/tasks/${bad}`]);
    gitSync(seed.dir, seed.env, ['update-ref', '-d', `refs/lazy/tasks/${bad}`]);
  };
  const created = Object.keys(files).find((p) => p.startsWith('changelog/'))!;
  const createdName = created.split('/')[1]!;
  // A complete task whose "accepted commit" is a git option.
  plant('bad1000a', {
    [`changelog/0000000009-zzzzzzz1.yaml`]: `id: zzzzzzz1\nclock: 9\ntimestamp: "2026-01-01T00:00:00.000Z"\nactor: system\nfrom: backlog\nto: abandoned\ntrigger: close\nreason: x\ndetails:\n  commit: "--output=${tm.root}/PWNED"\n`,
  });
  // A goal that would clear the terminal.
  plant('bad2000a', {}, (s) => s.replace(/^goal: .*$/m, 'goal: "\\e]0;owned\\a\\e[2J goal"'));
  // A clock far beyond its history.
  plant('bad3000a', { [`changelog/${createdName}`]: files[created]! }, (s) =>
    s.replace(/^clock: 1$/m, 'clock: 1000000000000'),
  );
  // A blob far larger than any document.
  plant('bad4000a', { 'turns/0000000005-zzzzzzz2.yaml': 'x'.repeat(12 * 1024 * 1024) });
  const p = await b!.json('pull');
  t.equal(p.run.code, 0);
  t.ok(
    p.value.rejected.some((r: any) => r.id === 'bad3000a' && /Lamport clock/.test(r.reason)),
    'a runaway clock is refused',
  );
  t.ok(
    p.value.rejected.some((r: any) => r.id === 'bad4000a' && /larger than any document/.test(r.reason)),
    'a huge blob is refused without being read',
  );
  const diff = await b!.json('diff', 'bad1000a');
  t.notOk(existsSync(join(tm.root, 'PWNED')), 'a stored value never becomes a git option');
  t.equal(diff.run.code, 4);
  const list = await b!('list', '--all');
  t.notMatch(list.stdout, /\u001b/, 'no escape sequence reaches the terminal');
  t.match(list.stdout, /\\u001b\[2J goal/);
});

test('a remote task history with no common root is refused, reported and never merged', async (t) => {
  const tm = team(2);
  t.teardown(tm.cleanup);
  const a = cli(tm.clones[0]!);
  const b = cli(tm.clones[1]!);
  const id = await a.create('the real goal', '--prompt', 'the real prompt');
  const other = await a.create('an honest task');
  await a('push');
  await b('pull');
  await a('comment', other, '-m', 'ordinary change');
  // The attacker force-pushes a new root for the task with a higher clock.
  const files = readTaskFiles(tm.clones[0]!, id);
  files['task.yaml'] = files['task.yaml']!.replace(/^goal: .*$/m, 'goal: rm -rf everything').replace(
    /^clock: .*$/m,
    'clock: 900',
  );
  plantTree(tm.clones[0]!, `refs/lazy/tasks/${id}`, files);
  git(tm.clones[0]!, 'push', '-q', '--force', 'origin', `refs/lazy/tasks/${id}`, `refs/lazy/tasks/${other}`);
  const before = git(tm.clones[1]!, 'rev-parse', `refs/lazy/tasks/${id}`);
  const p = await b.json('pull');
  t.equal(p.run.code, 0, 'the pull succeeds for the rest');
  t.same(p.value.updated, [other], 'the honest change arrives');
  const r = p.value.rejected.find((x: any) => x.id === id);
  t.ok(r, 'the rewritten task is reported with its id');
  t.match(r.reason, /shares no commit with the local one/);
  t.equal(r.details.code, 'unrelated_history');
  t.equal(r.details.local_tip, before);
  t.match(p.run.stderr, /warning: the pull refused 1 remote ref/, 'and warned on stderr');
  t.equal(git(tm.clones[1]!, 'rev-parse', `refs/lazy/tasks/${id}`), before, 'the local task is untouched');
  t.equal((await b.json('show', id)).value.goal, 'the real goal');
  t.match(
    (await b('pull')).stdout,
    new RegExp(`rejected ${id}: the remote history of ${id} shares no commit`),
    'the text output names it too',
  );
});

test('push sends only what a pull would take, says what it skipped, and fails when it cannot deliver', async (t) => {
  const tm = team(2);
  t.teardown(tm.cleanup);
  const a = cli(tm.clones[0]!);
  const b = cli(tm.clones[1]!);
  const seed = tm.clones[0]!;
  const good = await a.create('good');
  const template = await a.create('template');
  await a('push');
  await a('comment', good, '-m', 'a change to push');
  const files = readTaskFiles(seed, template);
  const tree = git(seed, 'rev-parse', `refs/lazy/tasks/${template}^{tree}`);
  git(seed, 'update-ref', 'refs/lazy/tasks/bad00001', tree);
  plantTree(seed, 'refs/lazy/tasks/bad00002', {
    ...files,
    'task.yaml': withId(files['task.yaml']!, 'bad00002').replace(/^goal: .*$/m, 'goal: [1, 2]'),
  });
  plantTree(seed, 'refs/lazy/tasks/Not-A-Task', { ...files });
  plantTree(seed, 'refs/lazy/tasks/bad00003', {
    ...files,
    'task.yaml': withId(files['task.yaml']!, 'bad00003'),
    'turns/run-me.sh': 'rm -rf ~\n',
  });
  plantTree(seed, 'refs/lazy/junk', { 'x.txt': 'junk\n' });
  const blob = git(seed, 'hash-object', '-w', '--stdin');
  git(seed, 'update-ref', 'refs/lazy/tasks/bad00004', blob);
  plantTree(seed, 'refs/lazy/config', { 'config.yaml': 'watchdog_ms: 5\n' });
  const p = await a.json('push');
  t.equal(p.run.code, 6, 'a push that skipped refs exits non-zero');
  t.same(p.value.updated, [good], 'the valid change is delivered');
  const skipped = Object.fromEntries(p.value.skipped.map((s: any) => [s.id, s.reason]));
  t.match(skipped.bad00001, /points at a tree, not a commit/);
  t.match(skipped.bad00002, /fails the task schema at \/goal/);
  t.match(skipped.bad00003, /unexpected entry 'turns\/run-me\.sh'/);
  t.match(skipped.bad00004, /points at a blob, not a commit/);
  t.match(skipped['Not-A-Task'], /not a task id/);
  t.match(skipped['refs/lazy/junk'], /not a lazy ref/);
  t.match(
    skipped['refs/lazy/config'],
    /fails the config schema at \/watchdog_ms/,
    'a config a pull would refuse stays here',
  );
  t.same(
    remoteRefs(tm.remote).sort(),
    [`refs/lazy/tasks/${good}`, `refs/lazy/tasks/${template}`].sort(),
    'nothing bad reached the remote',
  );
  t.match((await a('push')).stdout, /skipped bad00002 \(a pull would refuse it; run lazy doctor\): .*schema/);
  const s = await a.json('sync');
  t.equal(s.run.code, 6, 'sync exits non-zero too');
  t.equal(s.value.push.skipped.length, 7);
  t.equal((await b.json('pull')).value.rejected.length, 0, 'so the other clone has nothing to refuse');
});

test('violation records whose file is not a plain repository path are refused, locally and on pull', async (t) => {
  const tm = team(2);
  t.teardown(tm.cleanup);
  const [a, b] = tm.clones.map((c) => cli(c));
  const seed = tm.clones[0]!;
  const tpl = await a!.create('template');
  const files = readTaskFiles(seed, tpl);
  const head = gitSync(seed.dir, seed.env, ['rev-parse', 'HEAD']).trim();
  const bad = ['../../etc/passwd', '/etc/passwd', '.git/hooks/pre-commit', 'a/./b'];
  const ids = bad.map((_, i) => `bad0000${i + 1}`);
  bad.forEach((file, i) => {
    const id = ids[i]!;
    plantTree(seed, `refs/lazy/tasks/${id}`, {
      ...files,
      'task.yaml': files['task.yaml']!.replace(/^id: .*$/m, `id: ${id}`),
      'violations/0000000900-zzzzzzz1.yaml': violationYaml({
        id: 'zzzzzzz1',
        clock: 900,
        file,
        run: 'zzzzzzz2',
        commit: head,
        base: head,
      }),
    });
  });
  const local = await a!.json('show', ids[0]!);
  t.equal(local.run.code, 6, 'stored data invalid');
  t.match(
    local.value.error.details,
    { file: 'violations/0000000900-zzzzzzz1.yaml', path: '/file' },
    'names the object and the failing path',
  );
  for (const id of ids)
    gitSync(seed.dir, seed.env, ['push', '-q', 'origin', `refs/lazy/tasks/${id}:refs/lazy/tasks/${id}`]);
  const p = await b!.json('pull');
  t.equal(p.run.code, 0);
  t.same(p.value.rejected.map((r: any) => r.id).sort(), ids, 'every planted path is refused on pull');
  for (const r of p.value.rejected) t.match(r.reason, /violation schema at \/file/);
});
