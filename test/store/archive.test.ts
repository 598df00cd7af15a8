import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sandbox, cli, gitSync, type Sandbox } from '../helpers/env.js';
import { concurrent } from '../helpers/concurrent.js';
import { commitTransaction } from '../../lib/store/archive/index.js';

// lazy archive (lib/store/archive/): finished tasks past archive.after_days leave refs/lazy/tasks/* for a few
// refs/lazy/archive/<shard> refs, and every reading surface still finds them.

const test = concurrent(3);

const refs = (sb: Sandbox, ns: string) =>
  gitSync(sb.dir, sb.env, ['for-each-ref', '--format=%(refname) %(objectname)', ns])
    .split('\n')
    .filter(Boolean)
    .map((l) => l.split(' ') as [string, string]);

/** `n` tasks, the first `done` finished 40 days ago (even ones complete, odd ones abandoned). */
async function seeded(n: number, done: number) {
  const sb = sandbox();
  const l = cli(sb);
  const r = await l('__bench-seed', String(n), '--complete', String(done), '--days-ago', '40');
  if (r.code !== 0) throw new Error(r.stderr);
  const all = (await l.json('list', '--all')).value as { id: string; status: string; tip: string }[];
  return { sb, l, all, finished: all.filter((x) => x.status === 'complete' || x.status === 'abandoned') };
}

test('archive moves finished tasks out of refs/lazy/tasks; show, log, list --all and prefixes still find them', async (t) => {
  const { sb, l, all, finished } = await seeded(8, 5);
  t.teardown(sb.cleanup);
  t.equal(finished.length, 5);
  const out = await l.json('archive');
  t.equal(out.run.code, 0);
  t.same(out.value.archived, finished.map((x) => x.id).sort(), 'every finished task was due (40 days > 30)');
  t.same(out.value.unarchived, []);
  t.equal(out.value.older_than_days, 30);
  const live = refs(sb, 'refs/lazy/tasks/').map(([r]) => r.slice('refs/lazy/tasks/'.length));
  t.same(
    live.sort(),
    all
      .filter((x) => !finished.includes(x))
      .map((x) => x.id)
      .sort(),
    'only open tasks stay live',
  );
  const shards = refs(sb, 'refs/lazy/archive/');
  t.same(shards.map(([r]) => r.slice(-1)).sort(), out.value.shards, 'one ref per shard (first character of the id)');
  for (const f of finished) {
    const [, tip] = shards.find(([r]) => r.endsWith(`/${f.id[0]}`))!;
    const parents = gitSync(sb.dir, sb.env, ['rev-list', '--parents', '-n', '1', tip]);
    t.ok(parents.includes(f.tip), `the archive commit keeps ${f.id}'s tip reachable`);
  }
  t.same(
    (await l.json('list')).value.map((x: any) => x.id).sort(),
    live.sort(),
    'the default list shows open tasks only',
  );
  const listed = (await l.json('list', '--all')).value.map((x: any) => x.id).sort();
  t.same(listed, all.map((x) => x.id).sort(), 'list --all lists every task once');
  const cache = JSON.parse(readFileSync(join(sb.dir, '.git', 'lazy', 'archive-rows.json'), 'utf8'));
  t.same(Object.keys(cache.rows).sort(), out.value.archived, "archive kept the index's rows of what it took");
  const text = (await l('list', '--all')).stdout;
  for (const f of finished) t.match(text, f.id, `list --all (text, from those rows) shows ${f.id}`);
  const done = (await l.json('list', '--status', 'complete')).value.map((x: any) => x.id).sort();
  t.same(
    done,
    finished
      .filter((x) => x.status === 'complete')
      .map((x) => x.id)
      .sort(),
    '--status complete too',
  );
  const one = finished[0]!;
  const shown = await l.json('show', one.id.slice(0, 6));
  t.equal(shown.run.code, 0, 'show by prefix finds an archived task');
  t.equal(shown.value.status, one.status);
  const log = await l.json('log', one.id);
  t.equal(log.value[0].commit, one.tip, 'log starts at the archived tip');
  t.equal((await l.json('archive')).value.archived.length, 0, 'a second archive has nothing to do');
});

test('reopen brings an archived task back live at its tip; the next archive drops it from the map', async (t) => {
  const { sb, l, finished } = await seeded(4, 2);
  t.teardown(sb.cleanup);
  await l('archive');
  const x = finished.find((f) => f.status === 'abandoned')!;
  const reopened = await l.json('reopen', x.id);
  t.equal(reopened.run.code, 0, (reopened.run as any).stderr);
  t.equal(reopened.value.task.status, 'backlog');
  const [[, tip]] = refs(sb, `refs/lazy/tasks/${x.id}`) as [[string, string]];
  t.equal(
    gitSync(sb.dir, sb.env, ['rev-parse', `${tip}^`]).trim(),
    x.tip,
    'the reopen commit sits on the archived tip',
  );
  const all = (await l.json('list', '--all')).value.filter((r: any) => r.id === x.id);
  t.equal(all.length, 1, 'listed once, as its live row');
  t.equal(all[0].status, 'backlog');
  const again = await l.json('archive');
  t.same(again.value.unarchived, [x.id], 'the map forgets a task its live ref took back');
  const map = gitSync(sb.dir, sb.env, ['cat-file', 'blob', `refs/lazy/archive/${x.id[0]}:tasks`]);
  t.notMatch(map, x.id);
  t.equal((await l.json('show', x.id)).value.status, 'backlog');
});

test('archive.after_days and --older-than choose what is due; nothing finished recently moves', async (t) => {
  const { sb, l } = await seeded(4, 3);
  t.teardown(sb.cleanup);
  t.equal((await l.json('archive', '--older-than', '50')).value.archived.length, 0, '40 days is not 50');
  await l('config', 'set', 'archive.after_days', '45', '--local');
  t.equal((await l.json('archive')).value.archived.length, 0, 'the setting is obeyed');
  t.equal((await l('archive', '--older-than', '-1')).code, 2, 'a negative age is a usage error');
  await l('config', 'set', 'archive.after_days', '35', '--local');
  t.equal((await l.json('archive')).value.archived.length, 3);
  const doctor = await l.json('doctor');
  const codes = doctor.value.findings.map((f: any) => f.code);
  t.notOk(codes.includes('task_ref_deleted'), 'doctor does not call an archived task deleted');
});

test('the ref transaction is all or nothing: a task that moved keeps its ref and the archive ref stays', async (t) => {
  const { sb, finished } = await seeded(2, 2);
  t.teardown(sb.cleanup);
  const a = finished[0]!;
  const b = finished[1]!;
  const stale = '0'.repeat(39) + '1';
  const ok = await commitTransaction(
    sb.dir,
    {
      shards: [{ shard: a.id[0]!, old: null, next: a.tip }],
      deletes: [
        { id: a.id, tip: a.tip },
        { id: b.id, tip: stale },
      ],
    },
    'test',
  );
  t.equal(ok, 'moved', 'one wrong expected value fails the whole transaction');
  t.equal(refs(sb, 'refs/lazy/tasks/').length, 2, 'no task ref was deleted');
  t.equal(refs(sb, 'refs/lazy/archive/').length, 0, 'no archive ref was made');
});

test('a live ref the transaction verifies that moved meanwhile fails it', async (t) => {
  const { sb, finished } = await seeded(2, 2);
  t.teardown(sb.cleanup);
  const [a, b] = finished as [(typeof finished)[0], (typeof finished)[0]];
  const stale = '0'.repeat(39) + '1';
  const shard = { shard: a.id[0]!, old: null, next: a.tip };
  const moved = await commitTransaction(
    sb.dir,
    { shards: [shard], deletes: [], verifies: [{ id: b.id, tip: stale }] },
    'test',
  );
  t.equal(moved, 'moved', 'a verified ref not at its tip fails the transaction');
  t.equal(refs(sb, 'refs/lazy/archive/').length, 0, 'no archive ref was made');
  const done = await commitTransaction(
    sb.dir,
    { shards: [shard], deletes: [], verifies: [{ id: b.id, tip: b.tip }] },
    'test',
  );
  t.equal(done, 'done', 'at its tip it passes');
});

test('packed-refs.lock held by another git process is contention, never a git failure', async (t) => {
  const { sb, l, finished } = await seeded(3, 2);
  t.teardown(sb.cleanup);
  gitSync(sb.dir, sb.env, ['pack-refs', '--all']);
  const lock = join(sb.dir, '.git', 'packed-refs.lock');
  writeFileSync(lock, '');
  const a = finished[0]!;
  const r = await commitTransaction(sb.dir, { shards: [], deletes: [{ id: a.id, tip: a.tip }] }, 'test');
  t.equal(r, 'locked', 'the transaction says the lock was held');
  const out = await l.json('archive');
  t.equal(out.value.error?.code, 'contention', 'lazy archive retried, then says contention');
  t.equal(refs(sb, 'refs/lazy/tasks/').length, 3, 'nothing moved');
  rmSync(lock);
  t.same((await l.json('archive')).value.archived, finished.map((x) => x.id).sort(), 'the next archive does it');
});

test('doctor folds each archive entry; --fix brings one whose documents are not finished back live', async (t) => {
  const { sb, l, all, finished } = await seeded(3, 2);
  t.teardown(sb.cleanup);
  const open = all.find((x) => !finished.includes(x))!;
  // An archive commit that names the open task as complete (as a trusted forged summary once made), its ref gone.
  const ref = `refs/lazy/archive/${open.id[0]}`;
  const old = gitSync(sb.dir, sb.env, ['for-each-ref', '--format=%(objectname)', ref]).trim();
  const before = old ? gitSync(sb.dir, sb.env, ['cat-file', 'blob', `${old}:tasks`]) : '';
  const text = [...before.split('\n').filter(Boolean), `${open.id} ${open.tip} complete`].sort().join('\n') + '\n';
  const blob = gitSync(sb.dir, sb.env, ['hash-object', '-w', '--stdin'], text).trim();
  const tree = gitSync(sb.dir, sb.env, ['mktree'], `100644 blob ${blob}\ttasks\n`).trim();
  const parents = [...(old ? ['-p', old] : []), '-p', open.tip];
  const commit = gitSync(sb.dir, sb.env, ['commit-tree', tree, ...parents, '-m', 'forged']).trim();
  gitSync(sb.dir, sb.env, ['update-ref', ref, commit]);
  gitSync(sb.dir, sb.env, ['update-ref', '-d', `refs/lazy/tasks/${open.id}`]);
  const found = (await l.json('doctor')).value.findings.filter((f: any) => f.code === 'archive_entry_wrong');
  t.same(
    found.map((f: any) => [f.details.task, f.details.ref, f.details.tip]),
    [[open.id, ref, open.tip]],
    'doctor reports the entry whose documents are not finished, and only it',
  );
  const fixed = await l.json('doctor', '--fix');
  t.notOk(
    fixed.value.findings.some((f: any) => f.code === 'archive_entry_wrong'),
    '--fix leaves no finding',
  );
  t.equal(gitSync(sb.dir, sb.env, ['rev-parse', `refs/lazy/tasks/${open.id}`]).trim(), open.tip, 'live at the tip');
  t.ok(
    (await l.json('list')).value.some((x: any) => x.id === open.id),
    'and listed again',
  );
});
