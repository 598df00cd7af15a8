import t from 'tap';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { agentSandbox } from '../helpers/agent.js';
import { gitSync } from '../helpers/env.js';

t.jobs = 4;

const worktree = (dir: string, id: string) => join(dir, '.lazy', 'worktrees', id);

t.test('a turn that succeeds with a commit: worktree, argv, prompt and environment', async (t) => {
  const { sb, l, invocations } = await agentSandbox();
  t.teardown(sb.cleanup);
  const id = await l.create(
    'add a greeting file',
    '--accept',
    'greeting.txt exists',
    '--prompt',
    'Write a friendly greeting.',
  );
  const started = await l.json('start', id);
  t.equal(started.run.code, 0);
  t.equal(started.value.task.status, 'working', 'start returns once the turn is launched');
  const waited = await l.json('wait', id, '--timeout', '30');
  t.equal(waited.run.code, 0, 'wait exits 0 for the blocked family');
  t.equal(waited.value.task.status, 'blocked');
  t.equal(waited.value.task.attention.kind, 'review');

  const [inv] = invocations();
  const wt = join(sb.dir, '.lazy', 'worktrees', id);
  t.equal(inv!.cwd, wt, 'the agent runs in the task worktree');
  t.equal(inv!.argv.length, 1, 'command agents get the prompt as their last (only) argument');
  t.match(inv!.prompt, /Task: add a greeting file/);
  t.match(inv!.prompt, /Write a friendly greeting\./);
  t.match(inv!.prompt, /- greeting\.txt exists/);
  t.equal(inv!.env.LAZY_TASK_ID, id);
  t.equal(inv!.env.LAZY_TURN, '1', 'LAZY_TURN is the sequence of the turn that launched the run');
  t.match(inv!.env.LAZY_RESULT, new RegExp(`^${wt}/\\.lazy/result-[0-9a-z]{8}\\.json$`));

  t.ok(existsSync(join(wt, 'work-1.txt')), 'the agent worked in the worktree');
  t.equal(
    gitSync(sb.dir, sb.env, ['log', '-1', '--format=%s', `lazy/${id}`]).trim(),
    'fake agent: turn 1',
    'its commit is on lazy/<id>',
  );
  t.equal(
    gitSync(sb.dir, sb.env, ['status', '--porcelain']).trim(),
    '',
    "the worktree stays out of the main checkout's git status",
  );

  const v = (await l.json('show', id)).value;
  const agentTurn = v.turns.find((x: any) => x.role === 'agent');
  t.equal(agentTurn.content, 'did turn 1', "the envelope's summary is the turn's summary");
  t.equal(agentTurn.actor, 'agent');
  t.equal(v.turns[0].feedback, 'consumed', 'the prompt turn was delivered and consumed');
  t.same(agentTurn.details.commands, [{ command: 'npm test', exit_code: 0 }]);
  t.same(agentTurn.details.risks, ['the fake agent tests nothing']);
  t.equal(v.session.agent, 'fake');
  t.equal(v.session.branch, `lazy/${id}`);
  t.equal(v.worktree, wt);
  t.ok(
    v.run.log.some((line: string) => /scenario succeed/.test(line)),
    "show includes the turn's log",
  );
});

t.test('unblock records feedback first, merges upstream, and reuses the worktree', async (t) => {
  const { sb, l, invocations } = await agentSandbox();
  t.teardown(sb.cleanup);
  const id = await l.create('iterate', '--accept', 'two turns');
  await l('start', id);
  t.equal((await l('wait', id, '--timeout', '30')).code, 0);
  // Upstream moves on while the task waits for review.
  gitSync(sb.dir, sb.env, ['commit', '--allow-empty', '-q', '-m', 'upstream change']);
  const u = await l.json('unblock', id, '-m', 'Please also handle the timeout case.\nThanks!');
  t.equal(u.run.code, 0);
  t.equal(
    u.value.task.turns.at(-1).content,
    'Please also handle the timeout case.\nThanks!',
    'the feedback turn is recorded before the agent runs',
  );
  t.equal(u.value.task.turns.at(-1).feedback, 'pending');
  t.equal((await l('wait', id, '--timeout', '30')).code, 0);
  const inv = invocations();
  t.equal(inv.length, 2);
  t.equal(inv[1]!.cwd, inv[0]!.cwd, 'later turns reuse the worktree');
  t.match(inv[1]!.prompt, /Please also handle the timeout case\.\nThanks!/, 'feedback reaches the agent verbatim');
  t.equal(inv[1]!.env.LAZY_TURN, '3');
  const subjects = gitSync(sb.dir, sb.env, ['log', '--format=%s', `lazy/${id}`]);
  t.match(subjects, /Merge main into task branch/, 'upstream was merged before the turn');
  const v = (await l.json('show', id)).value;
  t.same(
    v.turns.map((x: any) => x.feedback),
    ['consumed', null, 'consumed', null],
  );
});

t.test('a missing agent program fails with exit 7 and changes nothing', async (t) => {
  const { sb, l } = await agentSandbox({ settings: { 'agents.fake.command': '/nonexistent/agent --flag' } });
  t.teardown(sb.cleanup);
  const id = await l.create('x', '--accept', 'y');
  const r = await l.json('start', id);
  t.equal(r.run.code, 7);
  t.equal(r.value.error.code, 'agent_missing');
  t.equal((await l.json('show', id)).value.status, 'backlog');
});

t.test('an unknown agent name is a usage error', async (t) => {
  const { sb, l } = await agentSandbox();
  t.teardown(sb.cleanup);
  const id = await l.create('x', '--accept', 'y');
  const r = await l.json('start', id, '--agent', 'nobody');
  t.equal(r.run.code, 2);
  t.match(r.value.error.message, /agents\.nobody\.command/);
});

t.test('start --follow streams the turn and returns where the task landed', async (t) => {
  const { sb, l } = await agentSandbox();
  t.teardown(sb.cleanup);
  const id = await l.create('follow me', '--accept', 'done');
  const r = await l('start', id, '--follow');
  t.equal(r.code, 0, r.stderr);
  t.match(r.stdout, /fake agent: invocation 1, scenario succeed/, "the agent's output was streamed");
  t.match(r.stdout, /outcome: completed/);
  t.match(r.stdout, new RegExp(`${id}: .*`));
  t.equal((await l.json('show', id)).value.status, 'blocked');
});

t.test(
  'work left uncommitted is committed on the task branch; without an envelope the summary is the output tail',
  async (t) => {
    const { sb, l, scenario } = await agentSandbox({ settings: { worktree_dir: '/tmp/should-not-be-used-by-lazy' } });
    t.teardown(sb.cleanup);
    scenario('succeed-dirty');
    const id = await l.create('leave it dirty', '--accept', 'done');
    await l('start', id);
    const v = (await l.json('wait', id, '--timeout', '30')).value.task;
    const turn = v.turns.find((x: any) => x.role === 'agent');
    t.match(turn.content, /edited a file and left it for lazy to commit/, "the command agent's summary is its output");
    t.match(turn.details.review.auto_commit, /^[0-9a-f]{40}$/);
    t.equal(
      gitSync(sb.dir, sb.env, ['log', '-1', '--format=%s', `lazy/${id}`]).trim(),
      `lazy: work of turn 1 on task ${id}`,
    );
    t.equal(gitSync(sb.dir, sb.env, ['show', `lazy/${id}:dirty-1.txt`]), 'left uncommitted\n');
    t.ok(
      existsSync(join(sb.dir, '.lazy', 'worktrees', id)),
      'a shared worktree_dir is ignored: worktrees stay where this clone puts them',
    );
  },
);

// Issue 9: an unblock that skips the upstream merge says so.
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
