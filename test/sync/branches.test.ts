import { writeFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { cli, gitSync, type Sandbox } from '../helpers/env.js';
import { team, withFakeAgent } from '../helpers/team.js';
import { concurrent } from '../helpers/concurrent.js';
import { wantedRefs } from '../../lib/sync/branch-pull.js';
import { branchIdOf } from '../../lib/sync/branches.js';
import { Store } from '../../lib/store/store.js';
import { openRepo } from '../../lib/core/repo.js';
import { withEnv } from '../../lib/core/env.js';

// The task branch travels with the task: lib/sync/branches.ts (push), lib/sync/branch-pull.ts (pull).

const test = concurrent(3);

const tipOf = (dir: string, ref: string) =>
  gitSync(dir, process.env, ['for-each-ref', '--format=%(objectname)', ref]).trim() || null;
const branch = (sb: Sandbox, id: string) => tipOf(sb.dir, `refs/heads/lazy/${id}`);

/** A commit on top of `ref` made with plumbing, so no checkout moves. */
function commitOn(sb: Sandbox, ref: string, file: string): string {
  const parent = tipOf(sb.dir, ref)!;
  const blob = gitSync(sb.dir, sb.env, ['hash-object', '-w', '--stdin'], `${file}\n`).trim();
  const base = gitSync(sb.dir, sb.env, ['ls-tree', parent]);
  const tree = gitSync(sb.dir, sb.env, ['mktree'], `${base}100644 blob ${blob}\t${file}\n`).trim();
  const c = gitSync(sb.dir, sb.env, ['commit-tree', tree, '-p', parent, '-m', `add ${file}`]).trim();
  gitSync(sb.dir, sb.env, ['update-ref', ref, c, parent]);
  return c;
}

/** A on clone 0 runs a task to review and pushes; B on clone 1 pulls. */
async function ranAndPulled(n = 2) {
  const tm = team(n);
  await withFakeAgent(tm.clones[0]!);
  const [a, b] = tm.clones.map((c) => cli(c));
  const id = await a!.create('travelling work', '--accept', 'done');
  await a!('start', id);
  await a!('wait', id);
  return { tm, a: a!, b: b!, id, A: tm.clones[0]!, B: tm.clones[1]! };
}

test('the branch is pushed with its task, created by a pull elsewhere, and fast-forwarded on later turns', async (t) => {
  const { tm, a, b, id, A, B } = await ranAndPulled();
  t.teardown(tm.cleanup);
  const pushed = await a.json('push');
  t.equal(pushed.run.code, 0);
  t.same(pushed.value.branches.new, [id], 'the branch went in the same push');
  t.same(pushed.value.branches.diverged, []);
  t.equal(tipOf(tm.remote, `refs/heads/lazy/${id}`), branch(A, id), 'the remote holds it as refs/heads/lazy/<id>');
  t.match((await a('push')).stdout, /branches: 0 new, 0 updated, 0 deleted, 1 up to date/, 'the text says so');

  const pulled = await b.json('pull');
  t.same(pulled.value.branches.created, [id], 'the pull creates it on the clone that did not run the task');
  t.equal(branch(B, id), branch(A, id));
  t.equal(tipOf(B.dir, `refs/remotes/origin/lazy/${id}`), branch(A, id), 'with its tracking ref');
  t.equal((await b.json('show', id)).value.branch_sync.state, 'equal');
  const diff = await b('diff', id, '--stat');
  t.match(diff.stdout, /work-1\.txt/, 'diff works from the fetched branch');

  await a('unblock', id, '-m', 'one more turn');
  await a('wait', id);
  t.same((await a.json('push')).value.branches.pushed, [id], 'a later turn is pushed as a fast-forward');
  const again = await b.json('pull');
  t.same(again.value.branches.updated, [id], 'and fast-forwarded on the other clone');
  t.equal(branch(B, id), branch(A, id));
  const noop = await b.json('pull');
  t.same(noop.value.branches, {
    created: [],
    updated: [],
    diverged: [],
    pruned: [],
    cleaned: [],
    kept: [],
    targets: [],
  });
  // close --delete-branch here: the deletion travels too; B's copy of a finished task's branch never comes back.
  await a('close', id, '--delete-branch', '-m', 'enough');
  t.same((await a.json('push')).value.branches.deleted, [id], 'a close that deleted the branch deletes it there');
  t.same((await b.json('pull')).value.branches.pruned, [id]);
  t.ok(branch(B, id), 'B keeps its copy of an abandoned task’s branch');
  const resent = await b.json('push');
  t.equal(resent.run.code, 0);
  t.same(resent.value.branches.new, [], 'a finished task’s branch is never re-created on the remote');
  t.equal(tipOf(tm.remote, `refs/heads/lazy/${id}`), null);
});

test('a diverged branch is reported on push and pull and named by show; neither side loses commits', async (t) => {
  const { tm, a, b, id, A, B } = await ranAndPulled();
  t.teardown(tm.cleanup);
  await a('push');
  await b('pull');
  const mineA = commitOn(A, `refs/heads/lazy/${id}`, 'from-a.txt');
  const mineB = commitOn(B, `refs/heads/lazy/${id}`, 'from-b.txt');
  t.same((await a.json('push')).value.branches.pushed, [id]);
  const rejected = await b.json('push');
  t.equal(rejected.run.code, 5, 'a diverged branch exits 5, like a task ref behind the remote');
  t.same(
    rejected.value.branches.diverged.map((d: any) => d.id),
    [id],
  );
  t.match(rejected.value.branches.diverged[0].reason, /not overwritten/);
  t.equal(tipOf(tm.remote, `refs/heads/lazy/${id}`), mineA, 'the remote keeps A’s commits');
  const pulled = await b.json('pull');
  t.same(
    pulled.value.branches.diverged.map((d: any) => d.id),
    [id],
    'the pull reports it too',
  );
  t.equal(branch(B, id), mineB, 'B keeps its own commits');
  t.equal(tipOf(B.dir, `refs/remotes/origin/lazy/${id}`), mineA, 'and sees A’s on the tracking ref');
  const shown = await b.json('show', id);
  t.same(shown.value.branch_sync, { state: 'diverged', remote: 'origin', ahead: 1, behind: 1 });
  t.match((await b('show', id)).stdout, /branch: +lazy\/\w+ has diverged from origin's \(1 commit\(s\) only here/);
  const sync = await b.json('sync');
  t.equal(sync.value.rounds, 1, 'sync does not retry a diverged branch');
  t.equal(sync.run.code, 5);
});

test('accept deletes the remote branch with a lease; the other clone cleans up; a lease failure is reported', async (t) => {
  const { tm, a, b, id, A, B } = await ranAndPulled(3);
  t.teardown(tm.cleanup);
  await a('push');
  await b('pull');
  t.ok(branch(B, id), 'B has the branch');
  t.equal((await a.json('accept', id, '--yes')).run.code, 0);
  t.equal(branch(A, id), null, 'accept deleted the branch on A');
  const pushed = await a.json('push');
  t.same(pushed.value.branches.deleted, [id], 'the deletion travels');
  t.equal(tipOf(tm.remote, `refs/heads/lazy/${id}`), null);
  const pulled = await b.json('pull');
  t.same(pulled.value.updated, [id]);
  t.same(pulled.value.branches.pruned, [id], 'the tracking ref is pruned');
  t.same(pulled.value.branches.cleaned, [id], 'and the branch the accept landed is removed on B');
  t.equal(branch(B, id), null);
  t.equal(tipOf(B.dir, `refs/remotes/origin/lazy/${id}`), null);

  // A second task: C adds a commit to its branch after A last saw it; A's deletion must fail.
  const c = cli(tm.clones[2]!);
  const id2 = await a.create('contested branch', '--accept', 'done');
  await a('start', id2);
  await a('wait', id2);
  await a('push');
  await c('pull');
  const theirs = commitOn(tm.clones[2]!, `refs/heads/lazy/${id2}`, 'late.txt');
  t.same((await c.json('push')).value.branches.pushed, [id2]);
  await a('accept', id2, '--yes');
  const leased = await a.json('push');
  t.equal(leased.run.code, 5, 'a failed lease exits 5');
  t.same(
    leased.value.branches.lease_failed.map((r: any) => r.id),
    [id2],
  );
  t.same(leased.value.branches.deleted, []);
  t.equal(tipOf(tm.remote, `refs/heads/lazy/${id2}`), theirs, 'the teammate’s commit is still on the remote');
  // C's pull sees the task complete, but its branch holds a commit the accept did not land: kept.
  const cp = await cli(tm.clones[2]!).json('pull');
  t.same(
    cp.value.branches.kept.map((k: any) => k.id),
    [id2],
  );
  t.equal(branch(tm.clones[2]!, id2), theirs, 'C keeps its unlanded commit');
  void B;
});

test('only branches of known tasks are fetched: unknown and hostile names never arrive', async (t) => {
  const tm = team(2);
  t.teardown(tm.cleanup);
  const [A, B] = tm.clones as [Sandbox, Sandbox];
  const [a, b] = [cli(A), cli(B)];
  const id = await a.create('known');
  await a('push');
  // Branches named like tasks' but belonging to none, pushed with plain git.
  const stray: Record<string, string> = {};
  for (const name of ['notatask', 'zzzzzzzz', `${id}x`]) {
    gitSync(A.dir, A.env, ['branch', `lazy/${name}`, 'main']);
    stray[name] = commitOn(A, `refs/heads/lazy/${name}`, `${name}.txt`);
    gitSync(A.dir, A.env, ['push', '-q', 'origin', `refs/heads/lazy/${name}:refs/heads/lazy/${name}`]);
  }
  const pulled = await b.json('pull');
  t.equal(pulled.run.code, 0, 'the pull succeeds');
  t.same(pulled.value.new, [id]);
  t.same(pulled.value.branches.created, [], 'no branch created');
  const refs = gitSync(B.dir, B.env, ['for-each-ref', '--format=%(refname)']);
  t.notMatch(refs, /lazy\/(notatask|zzzzzzzz)/, 'no ref of an unknown branch');
  for (const [name, oid] of Object.entries(stray)) {
    const has = gitSync(B.dir, B.env, ['cat-file', '--batch-check'], `${oid}\n`);
    t.match(has, /missing/, `the objects of lazy/${name} were never fetched`);
  }
  // git refuses to serve a name like lazy/../x; a hostile server could advertise one: it is never wanted.
  const hostile = new Map([
    ['refs/heads/lazy/../x', stray.zzzzzzzz!],
    [`refs/heads/lazy/${id}/../../main`, stray.zzzzzzzz!],
    [`refs/heads/lazy/-${id.slice(1)}`, stray.zzzzzzzz!],
    [`refs/heads/lazy/${id}`, stray.notatask!],
  ]);
  t.same([...wantedRefs(hostile, new Set([id, '../x']), []).keys()], [`refs/heads/lazy/${id}`], 'only the task id');
  t.equal(branchIdOf('refs/heads/lazy/../x'), null);
  // Push never sends a branch that is not a known task's either.
  gitSync(B.dir, B.env, ['branch', 'lazy/yyyyyyyy', 'main']);
  commitOn(B, 'refs/heads/lazy/yyyyyyyy', 'y.txt');
  await b('comment', id, '-m', 'something to push');
  for (const name of ['notatask2', 'some/thing']) {
    gitSync(B.dir, B.env, ['branch', `lazy/${name}`, 'main']);
    commitOn(B, `refs/heads/lazy/${name}`, 'other.txt');
  }
  const pushed = await b.json('push');
  t.equal(pushed.run.code, 0);
  t.same(pushed.value.branches.new, []);
  t.equal(tipOf(tm.remote, 'refs/heads/lazy/yyyyyyyy'), null, 'the unknown branch stayed here');
  t.equal(tipOf(tm.remote, 'refs/heads/lazy/notatask2'), null, 'and so did a branch not named by a task id');
  t.equal(tipOf(tm.remote, 'refs/heads/lazy/some/thing'), null);
});

test('a dirty worktree is not moved by a pull; once clean it is fast-forwarded in place', async (t) => {
  const { tm, a, b, id, A, B } = await ranAndPulled();
  t.teardown(tm.cleanup);
  await a('push');
  await b('pull');
  const wt = join(B.dir, '.lazy', 'worktrees', id);
  gitSync(B.dir, B.env, ['worktree', 'add', '-q', wt, `lazy/${id}`]);
  writeFileSync(join(wt, 'scratch.txt'), 'mine, uncommitted\n');
  const before = branch(B, id);
  const next = commitOn(A, `refs/heads/lazy/${id}`, 'more.txt');
  await a('push');
  const pulled = await b.json('pull');
  t.same(
    pulled.value.branches.kept.map((k: any) => k.id),
    [id],
  );
  t.match(pulled.value.branches.kept[0].reason, /uncommitted changes/);
  t.equal(branch(B, id), before, 'the branch did not move under the dirty worktree');
  t.equal((await b.json('show', id)).value.branch_sync.state, 'behind', 'show says it is behind');
  rmSync(join(wt, 'scratch.txt'));
  const again = await b.json('pull');
  t.same(again.value.branches.updated, [id], 'a clean worktree is fast-forwarded');
  t.equal(branch(B, id), next);
  t.equal(gitSync(wt, B.env, ['rev-parse', 'HEAD']).trim(), next, 'in place: the worktree follows');
  t.equal(gitSync(wt, B.env, ['status', '--porcelain']).trim(), '', 'and is clean');
});

test("a pull keeps the remote copy of a submitted task's target fresh, in the same round trip", async (t) => {
  const { tm, a, b, id, A, B } = await ranAndPulled();
  t.teardown(tm.cleanup);
  // Until `lazy submit` lands, the submission is recorded as it will record it (the shared contract).
  await withEnv(A.env, async () => {
    const store = new Store(await openRepo(A.dir));
    const details = { remote: 'origin', branch: `lazy/${id}`, target: 'main', head: branch(A, id)! };
    await store.mutate(
      id,
      'submit',
      (d) => void d.transition('submitted', 'submit', 'submitted for review', { details }),
    );
    store.close();
  });
  await a('push');
  t.same((await b.json('pull')).value.branches.targets, [], 'the target is already fresh');
  // The forge's merge button: main moves on the remote, and nothing under refs/lazy/ does.
  gitSync(A.dir, A.env, ['push', '-q', 'origin', `refs/heads/lazy/${id}:refs/heads/main`]);
  const pulled = await b.json('pull');
  t.same(pulled.value.branches.targets, ['main'], 'the moved target is fetched');
  t.equal(tipOf(B.dir, 'refs/remotes/origin/main'), branch(A, id), 'into refs/remotes/origin/main');
  t.equal(tipOf(B.dir, 'refs/heads/main'), tipOf(A.dir, 'refs/heads/main'), 'the local main is left alone');
});
