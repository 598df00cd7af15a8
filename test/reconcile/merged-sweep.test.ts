import t from 'tap';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { agentSandbox, eventually } from '../helpers/agent.js';
import { gitSync } from '../helpers/env.js';

t.jobs = 4;

// Issue 9, "Crash recovery": the merged-branch sweep works for every merge.

const worktree = (dir: string, id: string) => join(dir, '.lazy', 'worktrees', id);

const complete = (v: any) =>
  v.changelog
    .filter((c: any) => !c.set_aside)
    .slice(-2)
    .map((c: any) => `${c.status}:${c.trigger}`)
    .join(',');

t.test(
  'a branch merged by hand (merge commit or fast-forward) completes the task at the next command, recording the commit',
  async (t) => {
    const { sb, l } = await agentSandbox();
    t.teardown(sb.cleanup);
    const ids = [
      await l.create('merged with a merge commit', '--accept', 'ok'),
      await l.create('fast-forwarded', '--accept', 'ok'),
      await l.create('left alone', '--accept', 'ok'),
    ];
    for (const id of ids) {
      await l('start', id);
      await l('wait', id, '--timeout', '30');
    }
    const [a, b, c] = ids as [string, string, string];
    gitSync(sb.dir, sb.env, ['merge', '-q', '--no-ff', '-m', 'merge by hand', `lazy/${a}`]);
    const mergeCommit = gitSync(sb.dir, sb.env, ['rev-parse', 'HEAD']).trim();
    t.equal((await l('list')).code, 0);
    let v = (await l.json('show', a)).value;
    t.equal(v.status, 'complete', 'the hand merge completed the task');
    t.equal(complete(v), 'zombie:zombie,complete:merge_done', 'through zombie and merge_done, by the system');
    const done = v.changelog.at(-1);
    t.equal(done.details.commit, mergeCommit, 'the merge commit is recorded');
    t.equal(done.details.target, 'main');
    t.equal(v.sessions.at(-1).outcome, 'accepted');
    t.equal(
      gitSync(sb.dir, sb.env, ['branch', '--list', `lazy/${a}`]).trim(),
      '',
      'its branch is deleted, as accept does',
    );
    t.notOk(existsSync(worktree(sb.dir, a)), 'its worktree is removed');
    t.equal((await l.json('show', c)).value.status, 'blocked', 'an unmerged task is untouched');

    // Fast-forward: main has moved, so rebase-free ff needs main to be an ancestor; merge main into the branch first.
    gitSync(worktree(sb.dir, b), sb.env, ['merge', '-q', '--no-ff', '-m', 'catch up', 'main']);
    const tip = gitSync(sb.dir, sb.env, ['rev-parse', `lazy/${b}`]).trim();
    gitSync(sb.dir, sb.env, ['merge', '-q', '--ff-only', `lazy/${b}`]);
    await l('list');
    v = (await l.json('show', b)).value;
    t.equal(v.status, 'complete', 'a fast-forward completes the task');
    t.equal(v.changelog.at(-1).details.commit, tip, 'the landed commit is the branch tip');
    t.equal((await l.json('show', c)).value.status, 'blocked');
  },
);

t.test('a merge pulled from the remote completes the task', async (t) => {
  const { sb, l } = await agentSandbox();
  t.teardown(sb.cleanup);
  const remote = join(sb.home, 'origin.git');
  gitSync(sb.home, sb.env, ['init', '-q', '--bare', '-b', 'main', remote]);
  gitSync(sb.dir, sb.env, ['remote', 'add', 'origin', remote]);
  gitSync(sb.dir, sb.env, ['push', '-q', '-u', 'origin', 'main']);
  const id = await l.create('reviewed on the forge', '--accept', 'ok');
  await l('start', id);
  await l('wait', id, '--timeout', '30');
  gitSync(sb.dir, sb.env, ['push', '-q', 'origin', `lazy/${id}`]);
  // A teammate merges the pushed branch on their clone and pushes main.
  const other = join(sb.home, 'other');
  gitSync(sb.home, sb.env, ['clone', '-q', remote, other]);
  gitSync(other, sb.env, ['merge', '-q', '--no-ff', '-m', 'merge the pull request', `origin/lazy/${id}`]);
  gitSync(other, sb.env, ['push', '-q', 'origin', 'main']);
  const merged = gitSync(other, sb.env, ['rev-parse', 'HEAD']).trim();
  t.equal((await l.json('show', id)).value.status, 'blocked', 'nothing happens before the merge reaches this clone');
  gitSync(sb.dir, sb.env, ['pull', '-q', '--no-rebase', 'origin', 'main']);
  const v = (await l.json('show', id)).value;
  t.equal(v.status, 'complete', 'the pulled merge completed the task at the next command');
  t.equal(v.changelog.at(-1).details.commit, merged);
});

t.test(
  'no false positives: a branch without work, a branch given more commits after its merge, a working task',
  async (t) => {
    const { sb, l, scenario, invocations } = await agentSandbox();
    t.teardown(sb.cleanup);
    scenario('silent,succeed,succeed,hang'); // one per launch, in order
    const empty = await l.create('the agent did nothing', '--accept', 'ok');
    await l('start', empty);
    await l('wait', empty, '--timeout', '30');
    t.equal(
      gitSync(sb.dir, sb.env, ['rev-parse', `lazy/${empty}`]).trim(),
      gitSync(sb.dir, sb.env, ['rev-parse', 'main']).trim(),
      'its branch has no commit of its own',
    );
    writeFileSync(join(sb.dir, 'moved.txt'), 'main moves on\n');
    gitSync(sb.dir, sb.env, ['add', 'moved.txt']);
    gitSync(sb.dir, sb.env, ['commit', '-qm', 'main moves on']);
    await l('list');
    t.equal((await l.json('show', empty)).value.status, 'blocked', 'a branch with no work is not "merged"');
    // The first sweep in a clone (no remembered tips) has only the task's base to go by.
    rmSync(join(sb.dir, '.git', 'lazy', 'target-tips.json'));
    await l('list');
    t.equal((await l.json('show', empty)).value.status, 'blocked', 'nor on a first sweep');
    t.ok(existsSync(join(sb.dir, '.git', 'lazy', 'target-tips.json')), 'the first sweep remembers the tips');

    const more = await l.create('merged, then more work', '--accept', 'ok');
    await l('start', more);
    await l('wait', more, '--timeout', '30');
    gitSync(sb.dir, sb.env, ['merge', '-q', '--no-ff', '-m', 'early merge', `lazy/${more}`]);
    writeFileSync(join(worktree(sb.dir, more), 'later.txt'), 'more\n');
    gitSync(worktree(sb.dir, more), sb.env, ['add', 'later.txt']);
    gitSync(worktree(sb.dir, more), sb.env, ['commit', '-qm', 'more work after the merge']);
    await l('list');
    t.equal(
      (await l.json('show', more)).value.status,
      'blocked',
      'a branch with commits beyond the merge is not merged',
    );

    const busy = await l.create('merged while working', '--accept', 'ok');
    await l('start', busy);
    await l('wait', busy, '--timeout', '30');
    await l('unblock', busy, '-m', 'keep going');
    await eventually(() => invocations().length >= 4, 20_000, 'the agent to work (after the upstream merge)');
    gitSync(sb.dir, sb.env, ['merge', '-q', '--no-ff', '-m', 'merge while the agent works', `lazy/${busy}`]);
    await l('list');
    t.equal((await l.json('show', busy)).value.status, 'working', 'a working task is not completed under its agent');
    await l('stop', busy);
    const v = (await l.json('show', busy)).value;
    t.equal(v.status, 'complete', 'once the turn ended, the next command completes it');
    t.equal((await l.json('show', more)).value.status, 'blocked');
  },
);
