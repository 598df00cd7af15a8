import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { agentSandbox, eventually, FAKE_COMMAND } from '../helpers/agent.js';
import { gitSync } from '../helpers/env.js';
import { concurrent } from '../helpers/concurrent.js';

// The review loop a human drives: clarification, the inbox, close and reject, reopen, diff
// and edit, answers, and protected-file decisions (a conflict is derived from the pending
// violation set and decided file by file).

const test = concurrent(5);

test('a task with no criterion launches no agent: the clarification round trip', async (t) => {
  const { sb, l, invocations } = await agentSandbox();
  t.teardown(sb.cleanup);
  const id = await l.create('make it better');
  const s = await l.json('start', id);
  t.equal(s.run.code, 0);
  t.equal(s.value.run, null, 'no run was launched');
  t.equal(s.value.task.status, 'blocked');
  t.equal(s.value.task.attention.kind, 'decision');
  t.match(s.value.task.attention.reason, /observable condition/);
  t.equal(invocations().length, 0);
  const a = await l.json('answer', id, '-m', 'the page loads in under 200 ms');
  t.equal(a.run.code, 0);
  t.same(a.value.task.acceptance, ['the page loads in under 200 ms'], 'the answer became a criterion');
  await l('wait', id, '--timeout', '30');
  t.match(invocations()[0]!.prompt, /Acceptance criteria:\n- the page loads in under 200 ms/, 'and reached the agent');
});

test('the inbox lists only what needs a human, oldest first', async (t) => {
  const box = await agentSandbox({ settings: { protected: 'config/**' } });
  const { sb, l, scenario, invocations } = box;
  t.teardown(sb.cleanup);
  const backlog = await l.create('not started', '--accept', 'x');
  const review = await l.create('review me', '--accept', 'x');
  scenario('succeed');
  await l('start', review);
  await l('wait', review, '--timeout', '30');
  const decision = await l.create('no criterion');
  await l('start', decision);
  const failure = await l.create('fails', '--accept', 'x');
  scenario('auth');
  await l('start', failure);
  await l('wait', failure, '--timeout', '30');
  const conflict = await l.create('conflicts', '--accept', 'x');
  scenario('protected');
  await l('start', conflict);
  await l('wait', conflict, '--timeout', '30');
  const stopped = await l.create('stopped', '--accept', 'x');
  scenario('hang');
  await l('start', stopped);
  await eventually(() => invocations().length >= 4, 20000, 'the hanging agent');
  const working = await l.create('still working', '--accept', 'x');
  await l('start', working);
  await eventually(() => invocations().length >= 5, 20000, 'the second hanging agent');
  await l('stop', stopped);

  const inbox = (await l.json('inbox')).value;
  t.same(
    inbox.map((i: any) => [i.id, i.attention.kind]),
    [
      [review, 'review'],
      [decision, 'decision'],
      [failure, 'failure'],
      [conflict, 'conflict'],
      [stopped, 'interrupted'],
    ],
    'blocked (review, decision, failure), conflict and user-stopped, oldest first',
  );
  t.notOk(
    inbox.some((i: any) => i.id === backlog || i.id === working),
    'queued and running work never appears',
  );
  t.equal(inbox.find((i: any) => i.id === failure).attention.reason.startsWith('fatal_auth'), true);
  t.match((await l('inbox')).stdout, /review\s+\d{4}-\d\d-\d\dT[\d:.]+Z/);
  await l('stop', working);
});

test('close and reject end the session, remove the worktree, and keep unmerged work', async (t) => {
  const { sb, l } = await agentSandbox();
  t.teardown(sb.cleanup);
  const id = await l.create('to reject', '--accept', 'x');
  await l('start', id);
  await l('wait', id, '--timeout', '30');
  const r = await l.json('reject', id, '-m', 'wrong approach');
  t.equal(r.run.code, 0);
  t.equal(r.value.task.status, 'abandoned');
  t.equal(r.value.task.sessions.at(-1).outcome, 'rejected');
  t.equal(r.value.worktree_removed, true);
  t.notOk(existsSync(join(sb.dir, '.lazy', 'worktrees', id)));
  t.same(
    r.value.branch,
    { name: `lazy/${id}`, deleted: false, unmerged_commits: 1 },
    'a branch with unmerged commits is kept',
  );
  t.match((await l('show', id)).stdout, /status: +abandoned/);
  const text = await l('reopen', id);
  t.match(text.stdout, /abandoned → blocked/, 'an abandoned task with agent work reopens to blocked');
  const u = await l.json('unblock', id, '-m', 'try again');
  t.equal(u.run.code, 0, 'a new session starts on the kept branch');
  t.equal(u.value.task.sessions.length, 2);
  await l('wait', id, '--timeout', '30');
  t.ok(existsSync(join(sb.dir, '.lazy', 'worktrees', id, 'work-1.txt')), 'the kept work is there');
  const closed = await l.json('close', id, '--delete-branch');
  t.equal(closed.value.branch.deleted, true, '--delete-branch removes it');
  const bare = await l.create('never started');
  const c2 = await l.json('close', bare);
  t.equal(c2.value.branch, null);
});

test('reopening a complete task needs a reason and starts over from the merged base', async (t) => {
  const { sb, l } = await agentSandbox();
  t.teardown(sb.cleanup);
  const id = await l.create('done once', '--accept', 'x');
  await l('start', id);
  await l('wait', id, '--timeout', '30');
  await l('accept', id, '--yes');
  const noReason = await l.json('reopen', id);
  t.equal(noReason.run.code, 2);
  const r = await l.json('reopen', id, '--reason', 'the fix regressed');
  t.equal(r.value.task.status, 'blocked');
  // Until the next turn, the reopen's reason is the attention, not the accepted review.
  t.same([r.value.task.attention.kind, r.value.task.attention.reason], ['review', 'reopened: the fix regressed']);
  const shown = (await l('show', id)).stdout;
  t.match(shown, /review: reopened: the fix regressed/, 'show says why it was reopened');
  t.notMatch(shown, /^Review \(turn/m, 'and not the accepted review package');
  const box = (await l.json('inbox')).value.find((i: any) => i.id === id);
  t.equal(box?.attention.reason, 'reopened: the fix regressed', 'the inbox too');
  t.match((await l('inbox')).stdout, /reopened: the fix regressed/);
  await l('unblock', id, '-m', 'fix the regression');
  t.equal((await l.json('wait', id, '--timeout', '30')).value.task.status, 'blocked');
  gitSync(sb.dir, sb.env, ['merge-base', '--is-ancestor', 'main', `lazy/${id}`]);
  t.pass('the new branch starts from main, which holds the accepted work');
});

test('diff, edit and the revision count', async (t) => {
  const { sb, l } = await agentSandbox();
  t.teardown(sb.cleanup);
  const id = await l.create('diffable', '--accept', 'x');
  t.equal((await l.json('diff', id)).run.code, 4, 'no branch before the first start');
  await l('start', id);
  await l('wait', id, '--timeout', '30');
  const d = await l.json('diff', id);
  t.equal(d.value.task.id, id, 'diff --json carries the task');
  t.match(d.value.text, /\+\+\+ b\/work-1\.txt\n@@ -0,0 \+1 @@\n\+turn 1/);
  t.match((await l('diff', id, '--stat')).stdout, /work-1\.txt \| 1 \+/);
  const e = await l.json('edit', id, '--accept', 'tests pass', '--tag', 'perf', '--goal', 'diffable and fast');
  t.same(e.value.task.acceptance, ['x', 'tests pass']);
  t.same(e.value.task.tags, ['perf']);
  t.equal(e.value.task.goal, 'diffable and fast');
  await l('unblock', id, '-m', 'one more');
  const v = (await l.json('wait', id, '--timeout', '30')).value.task;
  t.equal(v.revisions, 1, 'each request for changes is a revision');
  t.match((await l('show', id)).stdout, /^Review \(turn #4, revision 1\)/m, 'show leads with the review package');
});

test('unblock on a pending decision is the answer; --agent on create picks the agent', async (t) => {
  const box = await agentSandbox({
    settings: { 'agents.other.command': FAKE_COMMAND },
  });
  const { sb, l, scenario, invocations } = box;
  t.teardown(sb.cleanup);
  scenario('question,succeed');
  const id = await l.create('ask first', '--accept', 'x', '--agent', 'other');
  await l('start', id);
  t.equal((await l.json('wait', id, '--timeout', '30')).value.task.attention.kind, 'decision');
  const u = await l.json('unblock', id, '-m', 'Go with B.');
  t.equal(u.run.code, 0);
  t.equal(u.value.task.turns.at(-1).kind, 'answer', 'recorded as the answer');
  await l('wait', id, '--timeout', '30');
  t.match(invocations()[1]!.prompt, /The human answered your question:\n\nGo with B\./);
  t.equal((await l.json('show', id)).value.session.agent, 'other', 'the task ran with the agent named at create');
});

test('protected-file decisions across several turns', async (t) => {
  const box = await agentSandbox({ settings: { protected: 'config/**' } });
  const { sb, l, scenario } = box;
  t.teardown(sb.cleanup);
  scenario('protected,succeed,succeed,protected,protected');
  const id = await l.create('touch config', '--accept', 'done');
  await l('start', id);
  let v = (await l.json('wait', id, '--timeout', '30')).value.task;
  t.equal(v.status, 'conflict', 'a turn touching a protected path parks as conflict');
  t.same(
    v.pending_violations.map((p: any) => p.file),
    ['config/secrets.env'],
    'one violation per file',
  );
  t.equal(v.attention.kind, 'conflict');

  const noDecision = await l.json('unblock', id, '-m', 'go on');
  t.equal(noDecision.run.code, 4, 'unblock will not infer a decision');
  t.same(noDecision.value.error.details.pending_files, ['config/secrets.env']);
  t.equal((await l.json('accept', id, '--yes')).run.code, 4, 'neither will accept');

  // An ask (a turn that runs no permission check) never clears a pending file.
  const asked = await l.json('ask', id, '-m', 'what did you change?');
  t.equal(asked.value.task.status, 'conflict', 'ask restores conflict');
  t.same(
    asked.value.task.pending_violations.map((p: any) => p.file),
    ['config/secrets.env'],
  );

  const reverted = await l.json('unblock', id, '-m', 'do not touch secrets', '--revert-file', 'config/secrets.env');
  t.equal(reverted.run.code, 0, reverted.run.stdout);
  const log = gitSync(sb.dir, sb.env, ['log', '--format=%s', `lazy/${id}`]);
  t.match(
    log,
    /lazy: revert protected file config\/secrets\.env/,
    'a revert is a commit of its own on the task branch',
  );
  v = (await l.json('wait', id, '--timeout', '30')).value.task;
  t.equal(v.status, 'blocked', 'decided, and the next turn touched nothing protected');
  t.equal(
    gitSync(sb.dir, sb.env, ['ls-tree', '--name-only', `lazy/${id}`, 'config/']).trim(),
    '',
    'the file is gone from the branch',
  );

  await l('unblock', id, '-m', 'now you may change it');
  v = (await l.json('wait', id, '--timeout', '30')).value.task;
  t.equal(v.status, 'conflict', 'a new violation needs a new decision');
  await l('unblock', id, '-m', 'ok, keep it', '--approve-file', 'config/secrets.env');
  v = (await l.json('wait', id, '--timeout', '30')).value.task;
  t.equal(v.status, 'conflict', 'the fifth turn touched it again');
  t.equal(
    gitSync(sb.dir, sb.env, ['show', `lazy/${id}:config/secrets.env`]).trim(),
    'TOKEN=5',
    'the approved change was never reverted',
  );
  const named = await l.json('accept', id, '--yes', '--approve-all');
  t.equal(named.run.code, 0, named.run.stdout);
  t.equal(gitSync(sb.dir, sb.env, ['show', 'main:config/secrets.env']).trim(), 'TOKEN=5');
  const decisions = named.value.task.changelog.filter(
    (c: any) => c.trigger === 'accept' && c.from === 'conflict' && c.status === 'blocked',
  );
  t.equal(decisions.length, 1, 'accept recorded the decisions (conflict → blocked) before merging');
});

test('contradictory decisions are a usage error', async (t) => {
  const box = await agentSandbox({ settings: { protected: 'config/**' } });
  t.teardown(box.sb.cleanup);
  box.scenario('protected');
  const id = await box.l.create('x', '--accept', 'done');
  await box.l('start', id);
  await box.l('wait', id, '--timeout', '30');
  const r = await box.l.json(
    'unblock',
    id,
    '-m',
    'x',
    '--approve-file',
    'config/secrets.env',
    '--revert-file',
    'config/secrets.env',
  );
  t.equal(r.run.code, 2);
  t.equal((await box.l.json('resume', id)).run.code, 4, 'resume is not even available from conflict');
});
