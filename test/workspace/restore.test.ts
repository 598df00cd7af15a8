import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { protectedBox } from '../helpers/agent.js';
import { gitSync, type Sandbox } from '../helpers/env.js';
import { plantTree, readTaskFiles, violationYaml } from '../helpers/plant.js';
import { concurrent } from '../helpers/concurrent.js';

// Reverting a protected file: stored names are literal, and content is restored only from
// a commit the task branch passed through.

const SECRET = 'config/secrets.env';
const wtOf = (sb: Sandbox, id: string) => join(sb.dir, '.lazy', 'worktrees', id);

/** Adds a planted violation to a task ref, keeping everything else. */
function plantViolation(sb: Sandbox, id: string, file: string, base?: string): void {
  const files = readTaskFiles(sb, id);
  const real = Object.keys(files).find((p) => p.startsWith('violations/'))!;
  const field = (k: string) => new RegExp(`^${k}: "?([^"\\n]+)"?$`, 'm').exec(files[real]!)![1]!;
  const clock = 1000;
  files[`violations/${String(clock).padStart(10, '0')}-zzzzzzz1.yaml`] = violationYaml({
    id: 'zzzzzzz1',
    clock,
    file,
    run: field('run'),
    commit: field('commit'),
    base: base ?? field('base'),
  });
  const ref = `refs/lazy/tasks/${id}`;
  plantTree(sb, ref, files, gitSync(sb.dir, sb.env, ['rev-parse', ref]).trim());
}

const test = concurrent(2);

test("a stored violation named '*' reverts only a file called '*'", async (t) => {
  const box = await protectedBox(t, 'protected,succeed');
  const { sb, l } = box;
  const id = await l.create('wildcard name', '--accept', 'done');
  await l('start', id);
  await l('wait', id, '--timeout', '30');
  plantViolation(sb, id, '*');
  t.same((await l.json('show', id)).value.pending_violations.map((p: any) => p.file).sort(), ['*', SECRET]);
  const r = await l.json('unblock', id, '-m', 'revert them', '--revert-all');
  t.equal(r.run.code, 0, r.run.stdout.slice(0, 300));
  const files = gitSync(sb.dir, sb.env, ['ls-tree', '--name-only', '-r', `lazy/${id}`])
    .trim()
    .split('\n');
  t.ok(
    files.includes('README.md') && files.includes('work-1.txt'),
    `every other file is still there: ${files.join(', ')}`,
  );
  t.notOk(files.includes(SECRET), 'the real violation was reverted');
  await l('wait', id, '--timeout', '30');
  t.ok(existsSync(join(wtOf(sb, id), 'README.md')));
});

test('a revert restores only from a commit the task branch passed through', async (t) => {
  const box = await protectedBox(t, 'protected,succeed');
  const { sb, l } = box;
  const id = await l.create('foreign base', '--accept', 'done');
  await l('start', id);
  await l('wait', id, '--timeout', '30');
  // A commit that never was on the branch, holding content nobody reviewed.
  const blob = gitSync(sb.dir, sb.env, ['hash-object', '-w', '--stdin'], 'planted\n').trim();
  const tree = gitSync(sb.dir, sb.env, ['mktree'], `100644 blob ${blob}\tREADME.md\n`).trim();
  const foreign = gitSync(sb.dir, sb.env, ['commit-tree', tree, '-m', 'foreign'], '').trim();
  plantViolation(sb, id, 'README.md', foreign);
  const r = await l.json('unblock', id, '-m', 'revert', '--revert-all');
  t.equal(r.run.code, 6, 'the record is refused as invalid data');
  t.match(r.value.error.message, /not a commit on the task branch/);
  t.equal(
    gitSync(sb.dir, sb.env, ['show', `lazy/${id}:README.md`]),
    '# sandbox\n',
    'the file was not restored from it',
  );
  t.equal((await l.json('show', id)).value.status, 'conflict', 'nothing started');
});
