import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli, lazySpawn, gitSync, type Sandbox } from '../helpers/env.js';
import { team } from '../helpers/team.js';
import { concurrent } from '../helpers/concurrent.js';

// The archive across clones (lib/sync/archive.ts): push archives what is due and retires those task refs on the
// remote with an expected old value; pull takes the archive refs and drops the live refs the remote archived; two
// clones that archived at once merge deterministically and lose nothing. Two real clones and a bare remote.

const test = concurrent(2);

const refsOf = (dir: string, ns: string) =>
  gitSync(dir, process.env, ['for-each-ref', '--format=%(refname) %(objectname)', ns]).trim();
const ids = (dir: string) =>
  refsOf(dir, 'refs/lazy/tasks/')
    .split('\n')
    .filter(Boolean)
    .map((l) => l.split(' ')[0]!.slice('refs/lazy/tasks/'.length))
    .sort();

/** A seeds 6 tasks (4 finished 40 days ago) and pushes them live; B pulls. Both keep everything live until told. */
async function twoClones() {
  const tm = team(2);
  const [A, B] = tm.clones as [Sandbox, Sandbox];
  const [a, b] = [cli(A), cli(B)];
  for (const l of [a, b]) await l('config', 'set', 'archive.after_days', '1000', '--local');
  await a('__bench-seed', '6', '--complete', '4', '--days-ago', '40');
  await a('push');
  await b('pull');
  const all = (await a.json('list', '--all')).value as { id: string; status: string; tip: string }[];
  const finished = all.filter((x) => x.status === 'complete' || x.status === 'abandoned');
  return { tm, A, B, a, b, all, finished };
}

test('push archives what is due and deletes those refs on the remote; a pull elsewhere drops them', async (t) => {
  const { tm, A, B, a, b, all, finished } = await twoClones();
  t.teardown(tm.cleanup);
  t.equal(ids(B.dir).length, 6);
  await a('config', 'unset', 'archive.after_days', '--local');
  const pushed = await a.json('push');
  t.equal(pushed.run.code, 0);
  const gone = finished.map((x) => x.id).sort();
  t.same(pushed.value.archived, gone, 'the push archived the due tasks first');
  t.same(pushed.value.archived_on_remote.sort(), gone, 'and deleted their refs on the remote');
  const open = all
    .filter((x) => !gone.includes(x.id))
    .map((x) => x.id)
    .sort();
  t.same(ids(tm.remote), open, 'the remote advertises the open tasks only');
  t.equal(refsOf(tm.remote, 'refs/lazy/archive/'), refsOf(A.dir, 'refs/lazy/archive/'), 'with the archive refs');

  // Meanwhile B reopened one of them: B's change wins over A's archive, everywhere.
  const y = finished.find((f) => f.status === 'abandoned')!.id;
  await b('reopen', y, '-m', 'B still needs it');
  const pulled = await b.json('pull');
  t.same(
    pulled.value.archive.dropped.sort(),
    gone.filter((id) => id !== y),
    'the pull drops the live refs the remote archived, not one changed here since',
  );
  t.same(ids(B.dir), [...open, y].sort());
  await b('push');
  t.same(ids(tm.remote), [...open, y].sort(), "B's push brings the reopened task back on the remote");
  const back = await a.json('pull');
  t.same(back.value.new, [y], 'and A takes it live again');
  const map = gitSync(A.dir, process.env, ['cat-file', 'blob', `refs/lazy/archive/${y[0]}:tasks`]);
  t.notMatch(map, y, "B's push archived first, and that dropped y from the map: its live ref holds the archived tip");
  t.equal((await a.json('show', y)).value.status, 'backlog');
  t.same((await a.json('archive')).value.archived, [], 'nothing left to archive on A');
  await a('push');
  await b('pull');
  t.equal(refsOf(B.dir, 'refs/lazy/archive/'), refsOf(A.dir, 'refs/lazy/archive/'));
  t.same((await b.json('list', '--all')).value.map((x: any) => x.id).sort(), all.map((x) => x.id).sort());
  t.equal((await b.json('show', gone[0]!)).value.id, gone[0], 'an archived task reads on the other clone');
  const again = await b.json('sync');
  t.equal(again.run.code, 0);
  t.same(ids(tm.remote), [...open, y].sort(), 'a sync from the other clone brings nothing else back');
});

test('two clones archiving at once merge deterministically and lose nothing', async (t) => {
  const { tm, A, B, a, b, all, finished } = await twoClones();
  t.teardown(tm.cleanup);
  const [x, z] = [finished.find((f) => f.status === 'abandoned')!, finished.find((f) => f.status === 'complete')!];
  // B changes x after A's copy (B's tip holds A's); both change z (the two diverge).
  await b('reopen', x.id, '-m', 'B reopens x');
  await b('close', x.id, '-m', 'B closes x');
  await a('reopen', z.id, '-m', 'A reopens z');
  await a('close', z.id, '-m', 'A closes z');
  await b('reopen', z.id, '-m', 'B reopens z');
  await b('close', z.id, '-m', 'B closes z');
  t.equal((await a.json('archive', '--older-than', '0')).value.archived.length, 4);
  t.equal((await b.json('archive', '--older-than', '0')).value.archived.length, 4);
  t.equal((await a.json('push')).run.code, 0);
  const synced = await b.json('sync');
  t.equal(synced.run.code, 0, 'the sync merges the two archives and pushes');
  t.equal((await a.json('pull')).run.code, 0);
  await a('sync');
  await b('sync');
  const archA = refsOf(A.dir, 'refs/lazy/archive/');
  t.equal(archA, refsOf(B.dir, 'refs/lazy/archive/'), 'both clones hold the same archive commits');
  t.equal(archA, refsOf(tm.remote, 'refs/lazy/archive/'), 'as does the remote');
  t.equal(refsOf(A.dir, 'refs/lazy/tasks/'), refsOf(B.dir, 'refs/lazy/tasks/'), 'and the same live refs');
  const listA = (await a.json('list', '--all')).value.map((r: any) => `${r.id} ${r.tip} ${r.status}`).sort();
  const listB = (await b.json('list', '--all')).value.map((r: any) => `${r.id} ${r.tip} ${r.status}`).sort();
  t.same(listA, listB, 'every task reads the same on both clones');
  t.equal(listA.length, all.length, 'each once');
  const xs = (await a.json('show', x.id)).value;
  t.ok(
    xs.changelog.some((c: any) => c.reason === 'B closes x'),
    "x keeps B's later change: the tip that holds the other wins",
  );
  const zs = (await a.json('show', z.id)).value;
  const reasons = zs.changelog.map((c: any) => c.reason);
  t.ok(reasons.includes('A closes z') && reasons.includes('B closes z'), 'z, archived at diverged tips, keeps both');
  t.equal(gitSync(B.dir, process.env, ['fsck', '--connectivity-only', '--no-progress']).trim(), '', 'fsck is clean');
});

test('a sync after a local archive neither brings the tasks back nor leaves them live on the remote', async (t) => {
  const { tm, A, a, all, finished } = await twoClones();
  t.teardown(tm.cleanup);
  const gone = finished.map((x) => x.id).sort();
  t.same((await a.json('archive', '--older-than', '0')).value.archived, gone);
  const synced = await a.json('sync');
  t.equal(synced.run.code, 0);
  t.same(synced.value.pull.new, [], 'the remote live refs of what this clone archived are not taken back');
  t.same(synced.value.push.archived_on_remote.sort(), gone, 'the push deletes them on the remote');
  const open = all.filter((x) => !gone.includes(x.id)).map((x) => x.id);
  t.same(ids(A.dir), open.sort());
  t.same(ids(tm.remote), open.sort());
});

/** Rewrites task `id`'s tip in `dir` into a commit of the same tree whose Lazy-Summary says `status`, updated in 2000. */
function forgeSummary(dir: string, id: string, status: string): string {
  const ref = `refs/lazy/tasks/${id}`;
  const msg = gitSync(dir, process.env, ['log', '-1', '--format=%B', ref]);
  const forged = msg.replace(/^Lazy-Summary: (\S+) (.*)$/m, (_l, key: string, json: string) => {
    const s = JSON.parse(json);
    s[1] = status;
    s[3] = '2000-01-01T00:00:00.000Z';
    return `Lazy-Summary: ${key} ${JSON.stringify(s)}`;
  });
  if (forged === msg) throw new Error('no summary to forge');
  const tree = gitSync(dir, process.env, ['rev-parse', `${ref}^{tree}`]).trim();
  const tip = gitSync(dir, process.env, ['rev-parse', ref]).trim();
  const c = gitSync(dir, process.env, ['commit-tree', tree, '-p', tip, '-m', forged.trimEnd()]).trim();
  gitSync(dir, process.env, ['update-ref', ref, c, tip]);
  return c;
}

test('a summary that says complete and old does not archive a task whose documents say backlog', async (t) => {
  const tm = team(1);
  t.teardown(tm.cleanup);
  const A = tm.clones[0]!;
  const a = cli(A);
  await a('config', 'set', 'archive.after_days', '1000', '--local');
  await a('__bench-seed', '60', '--complete', '4', '--days-ago', '40');
  await a('push');
  const all = (await a.json('list', '--all')).value as { id: string; status: string }[];
  const finished = all.filter((x) => x.status === 'complete' || x.status === 'abandoned');
  const open = all.find((x) => !finished.includes(x))!;
  forgeSummary(A.dir, open.id, 'complete');
  // Without its index, the clone reads every row from the tips' summaries (as a fresh clone's first list does).
  await a('config', 'unset', 'archive.after_days', '--local');
  const lazyDir = join(A.dir, '.git/lazy');
  for (const f of readdirSync(lazyDir)) if (f.startsWith('index')) rmSync(join(lazyDir, f), { force: true });
  // A process of its own: no rows held in memory from the commands before.
  const run = await lazySpawn(['push', '--json'], { cwd: A.dir, env: A.env });
  t.equal(run.code, 0);
  const pushed = { value: JSON.parse(run.stdout) };
  t.notOk(pushed.value.archived.includes(open.id), 'the fold of its documents says backlog: not archived');
  t.same(pushed.value.archived.sort(), finished.map((x) => x.id).sort(), 'the truly finished ones are');
  t.ok(ids(tm.remote).includes(open.id), 'and its ref stays on the remote');
  t.equal((await a.json('show', open.id)).value.status, open.status);
  const map = gitSync(A.dir, process.env, ['for-each-ref', '--format=%(objectname)', 'refs/lazy/archive/']);
  for (const oid of map.split('\n').filter(Boolean)) {
    const text = gitSync(A.dir, process.env, ['cat-file', 'blob', `${oid}:tasks`]);
    for (const line of text.split('\n').filter(Boolean)) {
      const [id, , status] = line.split(' ');
      t.equal(status, finished.find((f) => f.id === id)?.status, `the map's status of ${id} is its fold's`);
    }
  }
});

/** On clone `dir`, an archive commit of `id`'s shard whose map names `id` at a child of its tip with a task.yaml `yaml`. */
function badArchive(dir: string, id: string, yaml: string, line?: string, trailer = id): string {
  const env = process.env;
  const tip = gitSync(dir, env, ['rev-parse', `refs/lazy/tasks/${id}`]).trim();
  const blob = gitSync(dir, env, ['hash-object', '-w', '--stdin'], yaml).trim();
  const entries = gitSync(dir, env, ['ls-tree', tip])
    .split('\n')
    .filter(Boolean)
    .map((l) => (l.endsWith('\ttask.yaml') ? `100644 blob ${blob}\ttask.yaml` : l));
  const tree = gitSync(dir, env, ['mktree'], entries.join('\n') + '\n').trim();
  const child = gitSync(dir, env, ['commit-tree', tree, '-p', tip, '-m', `forged\n\nLazy-Task: ${trailer}`]).trim();
  const map = gitSync(dir, env, ['hash-object', '-w', '--stdin'], line ?? `${id} ${child} complete\n`).trim();
  const mapTree = gitSync(dir, env, ['mktree'], `100644 blob ${map}\ttasks\n`).trim();
  return gitSync(dir, env, ['commit-tree', mapTree, '-p', child, '-m', 'forged archive']).trim();
}

test('a remote archive ref naming a task at an invalid commit is refused whole; the live ref stays', async (t) => {
  const { tm, A, B, a, b, all, finished } = await twoClones();
  t.teardown(tm.cleanup);
  const open = all.find((x) => !finished.includes(x))!;
  const ref = `refs/lazy/archive/${open.id[0]}`;
  const forged = badArchive(A.dir, open.id, 'id: nope\n');
  gitSync(A.dir, process.env, ['push', '-q', 'origin', `${forged}:${ref}`]);
  const pulled = await b.json('pull');
  t.same(pulled.value.archive.dropped, [], 'nothing is dropped for it');
  t.ok(
    pulled.value.rejected.some((r: any) => r.id === ref && r.details.task === open.id),
    "the shard is in the pull's rejected",
  );
  t.ok(ids(B.dir).includes(open.id), 'the live ref stays');
  t.equal(refsOf(B.dir, 'refs/lazy/archive/'), '', 'and the archive ref is not taken');
  t.equal((await b.json('show', open.id)).value.id, open.id);
  // A map line that is no entry (an id with a space) is refused too, and no pull fails for it.
  const odd = badArchive(A.dir, open.id, 'id: nope\n', `a b ${'0'.repeat(40)} complete\n`);
  gitSync(A.dir, process.env, ['push', '-q', '-f', 'origin', `${odd}:${ref}`]);
  const again = await b.json('pull');
  t.equal(again.run.code, 0);
  t.ok(
    again.value.rejected.some((r: any) => r.id === ref && /malformed/.test(r.reason)),
    'a malformed map is refused',
  );
  // A valid tree whose commit's Lazy-Task names another task is refused too.
  const yaml = gitSync(A.dir, process.env, ['cat-file', 'blob', `refs/lazy/tasks/${open.id}:task.yaml`]);
  const other = all.find((x) => x.id !== open.id)!.id;
  const named = badArchive(A.dir, open.id, yaml, undefined, other);
  gitSync(A.dir, process.env, ['push', '-q', '-f', 'origin', `${named}:${ref}`]);
  const third = await b.json('pull');
  t.ok(
    third.value.rejected.some((r: any) => r.id === ref && /Lazy-Task/.test(r.reason)),
    "a tip whose Lazy-Task is another task's is refused",
  );
  t.ok(ids(B.dir).includes(open.id), 'the live ref still stays');
  // And a clone never pushes such a ref.
  gitSync(A.dir, process.env, ['update-ref', ref, forged]);
  gitSync(tm.remote, process.env, ['update-ref', '-d', ref]);
  const pushed = await a.json('push');
  t.ok(
    pushed.value.skipped.some((r: any) => r.id === ref),
    'push skips it',
  );
  t.equal(refsOf(tm.remote, 'refs/lazy/archive/'), '', 'and the remote has no archive ref');
});

test('a pull that meets packed-refs.lock leaves the archive to the next pull and says so', async (t) => {
  const { tm, B, a, b, finished } = await twoClones();
  t.teardown(tm.cleanup);
  await a('config', 'unset', 'archive.after_days', '--local');
  t.equal((await a.json('push')).value.archived.length, finished.length);
  gitSync(B.dir, process.env, ['pack-refs', '--all']);
  const lock = join(B.dir, '.git', 'packed-refs.lock');
  writeFileSync(lock, '');
  const held = await b.json('pull');
  t.equal(held.run.code, 0, 'the pull still succeeds');
  t.same(held.value.archive.dropped, [], 'nothing dropped');
  t.match(held.value.archive.note, /packed-refs\.lock/, 'the report says why');
  rmSync(lock);
  const next = await b.json('pull');
  t.same(next.value.archive.dropped.sort(), finished.map((x) => x.id).sort(), 'the next pull takes the archive');
});

test('an archive ref the remote refuses (not a fast-forward) is reported as rejected, and push exits as for a task', async (t) => {
  const { tm, a, b, finished } = await twoClones();
  t.teardown(tm.cleanup);
  t.equal((await a.json('archive', '--older-than', '0')).value.archived.length, finished.length);
  t.equal((await b.json('archive', '--older-than', '0')).value.archived.length, finished.length);
  t.equal((await a.json('push')).run.code, 0);
  const pushed = await b.json('push');
  const shards = [...new Set(finished.map((x) => `refs/lazy/archive/${x.id[0]}`))].sort();
  const refused = pushed.value.rejected.map((r: any) => r.details.ref).sort();
  t.same(refused, shards, "every archive ref A's push got there first is in push's rejected");
  t.equal(pushed.run.code, 5, 'the remote moved on: exit 5, as for a task ref');
  t.same(pushed.value.archived_on_remote, [], 'and nothing is retired on the remote for them');
  t.equal((await b.json('sync')).run.code, 0, 'a sync merges the two archives and pushes');
});

test('an archived entry of a task this clone never held is taken at pull unfolded, and refused when it is read', async (t) => {
  const tm = team(2);
  t.teardown(tm.cleanup);
  const [A, B] = tm.clones as [Sandbox, Sandbox];
  const [a, b] = [cli(A), cli(B)];
  await a('__bench-seed', '3');
  await a('push');
  const id = ids(A.dir)[0]!;
  const ref = `refs/lazy/archive/${id[0]}`;
  // The remote holds the task only through an archive entry whose tip's task.yaml breaks its schema.
  gitSync(A.dir, process.env, ['push', '-q', 'origin', `${badArchive(A.dir, id, 'id: nope\n')}:${ref}`]);
  gitSync(A.dir, process.env, ['push', '-q', 'origin', `:refs/lazy/tasks/${id}`]);
  const pulled = await b.json('pull');
  t.equal(pulled.run.code, 0);
  t.same(pulled.value.rejected, [], 'the shard is taken: nothing here is dropped or merged for it');
  t.notOk(ids(B.dir).includes(id), 'the task is not live here');
  const shown = await b.json('show', id);
  t.not(shown.run.code, 0, 'reading it refuses the document');
  t.equal(shown.value.error.code, 'invalid_data');
  const doctor = await b.json('doctor');
  t.ok(JSON.stringify(doctor.value).includes('archive_entry_wrong'), 'doctor names the entry');
});
