import t from 'tap';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { agentSandbox, eventually, FAKE_AGENT } from '../helpers/agent.js';
import { gitSync } from '../helpers/env.js';

// Issue 9, "Feedback and comments": feedback given while the agent works is queued and
// starts the next turn, comments reach the agent's next prompt, and an unblock that
// skips the upstream merge says so.

const worktree = (dir: string, id: string) => join(dir, '.lazy', 'worktrees', id);

t.test('unblock on a working task queues the feedback; the end of the turn starts the next turn with it', async (t) => {
  const { sb, l, invocations, scenario } = await agentSandbox();
  t.teardown(sb.cleanup);
  sb.env.FAKE_SLEEP_MS = '2500';
  scenario('slow-succeed,succeed');
  const id = await l.create('write the parser', '--accept', 'it works');
  t.equal((await l('start', id)).code, 0);
  const feedback = 'Also handle empty input.\n  Keep the API unchanged.';
  const q = await l.json('unblock', id, '-m', feedback);
  t.equal(q.run.code, 0, `unblock on a working task exits 0: ${q.run.stderr}`);
  t.equal(q.value.run, null, 'no turn was launched by the unblock itself');
  t.ok(q.value.queued?.turn, 'the queued feedback turn is reported');
  t.equal(q.value.task.status, 'working', 'the task keeps working');
  const pending = q.value.task.turns.find((x: any) => x.id === q.value.queued.turn);
  t.equal(pending.feedback, 'pending', 'the feedback is recorded as pending');
  t.equal(pending.content, feedback);
  t.ok(q.value.task.available_actions.includes('unblock'), 'working lists unblock');

  const waited = await l.json('wait', id, '--timeout', '30');
  t.equal(invocations().length, 2, 'wait covers the turn the queued feedback starts');
  t.equal(waited.value.status, 'blocked');
  const second = invocations()[1]!;
  t.ok(second.prompt.includes(feedback), 'the next turn gets the feedback verbatim');
  t.match(second.prompt, /While your last turn was running, the human sent this feedback/);
  t.notOk(invocations()[0]!.prompt.includes('handle empty input'), 'the running turn never saw it');
  const v = (await l.json('show', id)).value;
  t.equal(v.turns.find((x: any) => x.id === q.value.queued.turn).feedback, 'consumed', 'the second turn consumed it');
  const auto = v.changelog.filter((c: any) => c.trigger === 'unblock');
  t.equal(auto.length, 1, 'one move into working for the queued feedback');
  t.equal(auto[0].actor, 'system');
  t.equal(v.changelog.filter((c: any) => c.status === 'working').length, 2);
  t.equal(invocations().length, 2, 'exactly one extra turn');
});

t.test('text output of a queued unblock, and a stop leaves queued feedback pending for resume', async (t) => {
  const { sb, l, invocations, scenario } = await agentSandbox();
  t.teardown(sb.cleanup);
  scenario('hang,succeed');
  const id = await l.create('a long task', '--accept', 'it works');
  await l('start', id);
  await eventually(() => invocations().length >= 1, 20_000, 'the agent to start');
  const r = await l('unblock', id, '-m', 'please stop using globals');
  t.equal(r.code, 0, r.stderr);
  t.match(r.stdout, /feedback queued .*starts its next turn when this one ends/);
  const refused = await l('unblock', id, '-m', 'x', '--approve-all');
  t.equal(refused.code, 4, 'protected-file decisions wait for the turn to end');
  t.match(refused.stderr, /nothing was queued/);

  const stopped = await l('stop', id);
  t.equal(stopped.code, 0);
  t.match(
    stopped.stdout,
    /2 feedback messages not acted on yet \(queued or interrupted\) stay pending: lazy resume delivers them/,
    'stop says the feedback waits',
  );
  await new Promise((r) => setTimeout(r, 1500));
  t.equal(invocations().length, 1, 'a stop does not start the queued feedback: the user asked to stop');
  let v = (await l.json('show', id)).value;
  t.equal(v.status, 'interrupted');
  t.equal(
    v.turns.filter((x: any) => x.feedback === 'pending' && x.content === 'please stop using globals').length,
    1,
    'it stays pending',
  );

  t.equal((await l('resume', id)).code, 0);
  await l('wait', id, '--timeout', '30');
  t.ok(invocations()[1]!.prompt.includes('please stop using globals'), 'resume delivers it verbatim');
  v = (await l.json('show', id)).value;
  t.equal(v.pending_feedback.length, 0);
});

t.test(
  'feedback queued during a turn that parks in conflict waits for the decisions, then reaches the agent verbatim',
  async (t) => {
    const { sb, l, invocations, scenario } = await agentSandbox({ settings: { protected: 'config/**' } });
    t.teardown(sb.cleanup);
    sb.env.FAKE_SLEEP_MS = '2500';
    scenario('slow-protected,succeed');
    const id = await l.create('touches secrets', '--accept', 'ok');
    await l('start', id);
    t.equal((await l('unblock', id, '-m', 'queued while it touched secrets')).code, 0);
    const w = await l.json('wait', id, '--timeout', '30');
    t.equal(w.value.status, 'conflict', 'the turn parked in conflict');
    await new Promise((r) => setTimeout(r, 1000));
    t.equal(invocations().length, 1, 'no turn starts without the protected-file decisions');
    t.ok(w.value.pending_feedback.length >= 1, 'the queued feedback stays pending');
    t.equal((await l('unblock', id, '-m', 'reverted the secrets; go on', '--revert-all')).code, 0);
    await l('wait', id, '--timeout', '30');
    const p = invocations()[1]!.prompt;
    t.ok(
      p.includes('reverted the secrets; go on') && p.includes('queued while it touched secrets'),
      'the unblock with decisions delivers both verbatim',
    );
  },
);

t.test('comments reach the next prompt, each exactly once', async (t) => {
  const { sb, l, invocations, scenario } = await agentSandbox();
  t.teardown(sb.cleanup);
  sb.env.FAKE_SLEEP_MS = '2000';
  scenario('slow-succeed,succeed,succeed');
  const id = await l.create('build the thing', '--accept', 'it works');
  t.equal((await l('comment', id, '-m', 'before start: use tabs')).code, 0);
  await l('start', id);
  t.equal((await l('comment', id, '-m', 'while working: the API key is in .env.example\nsecond line')).code, 0);
  await l('wait', id, '--timeout', '30');
  t.match(invocations()[0]!.prompt, /Comments from the human since your last turn \(1\)[\s\S]*before start: use tabs/);
  t.notOk(invocations()[0]!.prompt.includes('while working'), 'a comment made after a launch is not in that prompt');

  await l('unblock', id, '-m', 'next round');
  await l('wait', id, '--timeout', '30');
  const p2 = invocations()[1]!.prompt;
  t.ok(
    p2.includes('while working: the API key is in .env.example\nsecond line'),
    'the comment made while working is in the next prompt verbatim',
  );
  t.match(p2, /comment #\d+ by human Ada Lovelace/, 'marked as a human comment');
  t.notOk(p2.includes('before start'), 'an already delivered comment is not repeated');

  await l('unblock', id, '-m', 'third round');
  await l('wait', id, '--timeout', '30');
  t.notOk(invocations()[2]!.prompt.includes('Comments from the human'), 'no new comments: no comment block');
});

t.test('an unblock that skips the upstream merge says so, to the user and the agent', async (t) => {
  const { sb, l, invocations } = await agentSandbox();
  t.teardown(sb.cleanup);
  const id = await l.create('change a file', '--accept', 'it works');
  await l('start', id);
  await l('wait', id, '--timeout', '30');
  writeFileSync(join(sb.dir, 'upstream.txt'), 'new on main\n');
  gitSync(sb.dir, sb.env, ['add', 'upstream.txt']);
  gitSync(sb.dir, sb.env, ['commit', '-qm', 'upstream moves']);
  writeFileSync(join(worktree(sb.dir, id), 'scratch.txt'), 'left by a human\n');

  const u = await l.json('unblock', id, '-m', 'continue');
  t.equal(u.run.code, 0, u.run.stderr);
  t.same(
    u.value.upstream_skipped,
    { branch: 'main', reason: 'the task worktree has uncommitted changes', files: ['scratch.txt'], more: 0 },
    '--json says the merge was skipped',
  );
  await l('wait', id, '--timeout', '30');
  t.match(
    invocations()[1]!.prompt,
    /lazy did not merge main into your branch before this turn, because the task worktree has uncommitted changes \(scratch\.txt\)/,
  );
  t.equal(gitSync(worktree(sb.dir, id), sb.env, ['ls-files', 'upstream.txt']).trim(), '', 'main really was not merged');

  writeFileSync(join(worktree(sb.dir, id), 'scratch2.txt'), 'again\n');
  const text = await l('unblock', id, '-m', 'once more');
  t.match(
    text.stdout,
    /note: main was not merged into the task branch first: the task worktree has uncommitted changes \(scratch2\.txt\); the agent is told/,
  );
  await l('wait', id, '--timeout', '30');

  const clean = await l.json('unblock', id, '-m', 'clean now');
  t.equal(clean.value.upstream_skipped, undefined, 'a clean worktree merges and says nothing');
  await l('wait', id, '--timeout', '30');
  t.notMatch(invocations()[3]!.prompt, /did not merge/);
});

t.test(
  'queued feedback survives a crash (auto-resume delivers it) and a failed auto-start (the next unblock delivers it)',
  async (t) => {
    const { sb, l, invocations, scenario } = await agentSandbox();
    t.teardown(sb.cleanup);
    sb.env.FAKE_SLEEP_MS = '2500';
    scenario('crash,succeed');
    const id = await l.create('crashy', '--accept', 'it works');
    await l('start', id);
    t.equal((await l('unblock', id, '-m', 'queued before the crash')).code, 0);
    await eventually(
      async () => (await l.json('show', id)).value.changelog.some((c: any) => c.trigger === 'auto_resume'),
      30_000,
      'the auto-resume',
    );
    await l('wait', id, '--timeout', '30');
    t.ok(
      invocations()[1]!.prompt.includes('queued before the crash'),
      'the resumed turn delivers the queued feedback verbatim',
    );
    t.equal((await l.json('show', id)).value.pending_feedback.length, 0);

    // A queued start that cannot launch (the agent's program is gone) keeps the feedback.
    const wrapper = join(sb.home, 'agent.sh');
    writeFileSync(wrapper, `#!/bin/sh\nexec "${process.execPath}" "${FAKE_AGENT}" "$@"\n`, { mode: 0o755 });
    t.equal((await l('config', 'set', 'agents.fake.command', wrapper)).code, 0);
    const id2 = await l.create('the agent goes away', '--accept', 'it works');
    scenario('slow-succeed');
    await l('start', id2);
    t.equal((await l('unblock', id2, '-m', 'queued, then the agent goes away')).code, 0);
    rmSync(wrapper);
    await eventually(
      async () =>
        (await l.json('show', id2)).value.turns.some(
          (x: any) => x.role === 'system' && /could not start the next turn/.test(x.content),
        ),
      30_000,
      'the failed queued start to be recorded',
    );
    let v = (await l.json('show', id2)).value;
    t.equal(v.status, 'blocked');
    t.equal(
      v.turns.filter((x: any) => x.feedback === 'pending' && x.content === 'queued, then the agent goes away').length,
      1,
      'the feedback stays pending',
    );
    t.match(v.turns.at(-1).content, /not installed or not on PATH/, 'the reason is on the task');
    writeFileSync(wrapper, `#!/bin/sh\nexec "${process.execPath}" "${FAKE_AGENT}" "$@"\n`, { mode: 0o755 });
    scenario('succeed');
    const n = invocations().length;
    t.equal((await l('unblock', id2, '-m', 'newest feedback')).code, 0);
    await l('wait', id2, '--timeout', '30');
    const p = invocations()[n]!.prompt;
    t.ok(
      p.includes('newest feedback') && p.includes('queued, then the agent goes away'),
      'the next unblock delivers both verbatim',
    );
    v = (await l.json('show', id2)).value;
    t.equal(v.pending_feedback.length, 0);
  },
);

// Issue 9, "Crash recovery": the merged-branch sweep works for every merge.

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
