import t from 'tap';
import { writeFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { agentSandbox } from '../helpers/agent.js';
import { gitSync } from '../helpers/env.js';

async function reviewed(box: Awaited<ReturnType<typeof agentSandbox>>, goal = 'add work', extra: string[] = []) {
  const id = await box.l.create(goal, '--accept', 'done', ...extra);
  await box.l('start', id);
  const w = await box.l.json('wait', id, '--timeout', '30');
  if (w.value.status !== 'blocked') throw new Error(`not blocked: ${JSON.stringify(w.value).slice(0, 300)}`);
  return id;
}

t.test('accept squash-merges exactly the task into its base, then cleans up', async (t) => {
  const box = await agentSandbox();
  const { sb, l } = box;
  t.teardown(sb.cleanup);
  const id = await reviewed(box, 'add the first work file');
  const before = gitSync(sb.dir, sb.env, ['rev-parse', 'main']).trim();
  const r = await l.json('accept', id, '--yes');
  t.equal(r.run.code, 0, r.run.stderr);
  t.equal(r.value.task.status, 'complete');
  const head = gitSync(sb.dir, sb.env, ['log', '-1', '--format=%H%n%P%n%B', 'main']).trim().split('\n');
  t.equal(head[0], r.value.commit);
  t.equal(head[1], before, 'one squash commit on top of the old tip');
  t.equal(head[2], `Accept task ${id}: add the first work file`);
  t.ok(head.includes(`Lazy-Task: ${id}`), 'the commit carries the Lazy-Task trailer');
  t.equal(gitSync(sb.dir, sb.env, ['show', 'main:work-1.txt']), 'turn 1\n', 'the work landed');
  t.equal(readFileSync(join(sb.dir, 'work-1.txt'), 'utf8'), 'turn 1\n', 'and the checkout of main was updated');
  t.notOk(existsSync(join(sb.dir, '.lazy', 'worktrees', id)), 'worktree removed');
  t.equal(
    gitSync(sb.dir, sb.env, ['branch', '--list', `lazy/${id}`]).trim(),
    '',
    'branch deleted after the target moved',
  );
  t.same(
    r.value.task.changelog.slice(-2).map((c: any) => c.status),
    ['merging', 'complete'],
  );
  t.equal(r.value.task.sessions.at(-1).outcome, 'accepted');
  t.match(
    r.run.stderr,
    /accept: preflight\naccept: squash-merge into the target\naccept: verify the target moved\naccept: clean up branch and worktree/,
    'a plain line per phase when not on a terminal (stderr under --json)',
  );
  const again = await l.json('accept', id, '--yes');
  t.equal(again.run.code, 4, 'accepting a complete task is refused');
});

t.test('accept refuses a dirty task worktree and changes nothing', async (t) => {
  const box = await agentSandbox();
  t.teardown(box.sb.cleanup);
  const id = await reviewed(box);
  writeFileSync(join(box.sb.dir, '.lazy', 'worktrees', id, 'scratch.txt'), 'uncommitted');
  const r = await box.l.json('accept', id, '--yes');
  t.equal(r.run.code, 4);
  t.match(r.value.error.message, /uncommitted changes: scratch\.txt/);
  t.equal((await box.l.json('show', id)).value.status, 'blocked');
});

t.test('a dirty destination checkout is stashed and restored, never lost', async (t) => {
  const box = await agentSandbox();
  const { sb, l } = box;
  t.teardown(sb.cleanup);
  const id = await reviewed(box);
  writeFileSync(join(sb.dir, 'README.md'), '# sandbox\nmy local edit\n');
  writeFileSync(join(sb.dir, 'notes.txt'), 'untracked notes\n');
  const r = await l.json('accept', id, '--yes');
  t.equal(r.run.code, 0);
  t.equal(r.value.stash.restored, true);
  t.equal(readFileSync(join(sb.dir, 'README.md'), 'utf8'), '# sandbox\nmy local edit\n', 'tracked edit restored');
  t.equal(readFileSync(join(sb.dir, 'notes.txt'), 'utf8'), 'untracked notes\n', 'untracked file restored');
  t.equal(gitSync(sb.dir, sb.env, ['stash', 'list']).trim(), '', 'no stash left behind');
});

t.test('a stash that cannot be restored: the merge stands and the user is told how to recover', async (t) => {
  const box = await agentSandbox();
  const { sb, l } = box;
  t.teardown(sb.cleanup);
  const id = await reviewed(box);
  writeFileSync(join(sb.dir, 'work-1.txt'), 'my own version\n'); // collides with the file the task adds
  const r = await l.json('accept', id, '--yes');
  t.equal(r.run.code, 0, 'the merge still succeeds');
  t.equal(r.value.task.status, 'complete');
  t.equal(r.value.stash.restored, false);
  t.match(r.value.warnings[0], new RegExp(`kept in stash ${r.value.stash.id}`));
  t.match(r.value.warnings[0], /git stash pop/);
  t.equal(gitSync(sb.dir, sb.env, ['rev-parse', 'stash@{0}']).trim(), r.value.stash.id, 'the stash is still there');
  t.equal(
    gitSync(sb.dir, sb.env, ['show', `${r.value.stash.id}^3:work-1.txt`]),
    'my own version\n',
    "the user's file is in it",
  );
  t.equal(gitSync(sb.dir, sb.env, ['status', '--porcelain']).trim(), '', 'the checkout is clean at the merged commit');
  const text = await l('show', id);
  t.equal(text.code, 0);
});

t.test('subtasks stack on the parent branch and merge into it; an active parent refuses', async (t) => {
  const box = await agentSandbox();
  const { sb, l, scenario } = box;
  t.teardown(sb.cleanup);
  const parent = await reviewed(box, 'parent work');
  const child = await l.create('child work', '--parent', parent, '--accept', 'done');
  await l('start', child);
  await l('wait', child, '--timeout', '30');
  gitSync(sb.dir, sb.env, ['merge-base', '--is-ancestor', `lazy/${parent}`, `lazy/${child}`]);
  t.pass("the child's branch stacks on the parent's");
  const tree = await l('list', '--tree');
  t.match(tree.stdout, new RegExp(`${parent}.*\\n└─ ${child}`), 'list --tree shows the hierarchy');
  const mainBefore = gitSync(sb.dir, sb.env, ['rev-parse', 'main']).trim();
  const ok = await l.json('accept', child, '--yes');
  t.equal(ok.run.code, 0, ok.run.stdout);
  t.equal(ok.value.target, `lazy/${parent}`, "a child merges into its parent's branch");
  t.match(
    gitSync(sb.dir, sb.env, ['log', '-1', '--format=%s', `lazy/${parent}`]),
    new RegExp(`Accept task ${child}: child work`),
  );
  t.equal(gitSync(sb.dir, sb.env, ['rev-parse', 'main']).trim(), mainBefore, 'main is untouched');

  const second = await l.create('second child', '--parent', parent, '--accept', 'done');
  await l('start', second);
  await l('wait', second, '--timeout', '30');
  scenario('hang');
  await l('unblock', parent, '-m', 'keep going');
  const refused = await l.json('accept', second, '--yes');
  t.equal(refused.run.code, 4, 'a working parent refuses the merge');
  t.equal(refused.value.error.details.parent_status, 'working');
  await l('stop', parent);
  const again = await l.json('accept', second, '--yes');
  t.equal(again.run.code, 4, 'an interrupted parent refuses too');
  t.equal(again.value.error.details.parent_status, 'interrupted');
  t.equal((await l.json('show', second)).value.status, 'blocked', 'the refused child is unchanged');
});
