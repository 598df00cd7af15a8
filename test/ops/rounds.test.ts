import t from 'tap';
import { gitSync } from '../helpers/env.js';
import { agentSandbox, eventually, reviewed, type AgentBox, runSettled, showOf } from '../helpers/agent.js';
import { attentionFacts } from '../helpers/ask.js';

t.jobs = 4;

// issue 32, items 1 and 2: a follow-up (complete or abandoned) and a repair (blocked or interrupted) are one
// status-neutral round each: the task comes back to where it was, its verdict, attention and counters untouched.

const show = showOf;
const settled = runSettled;

async function accepted(box: AgentBox): Promise<string> {
  const id = await reviewed(box, 'a feature');
  const a = await box.l('accept', id, '--yes');
  if (a.code !== 0) throw new Error(a.stdout + a.stderr);
  return id;
}

const onBranch = (box: AgentBox, id: string, ref: string) =>
  gitSync(box.sb.dir, box.sb.env, ['rev-list', '--count', `${ref}..lazy/${id}`]).trim();

t.test('a follow-up on a complete task: back to complete, its commit on lazy/<id> only, show says so', async (t) => {
  const box = await agentSandbox();
  t.teardown(box.sb.cleanup);
  const id = await accepted(box);
  const before = await show(box, id);
  t.throws(
    () => gitSync(box.sb.dir, box.sb.env, ['rev-parse', '--verify', `lazy/${id}`]),
    'the accept deleted lazy/<id>',
  );
  t.ok(before.available_actions.includes('follow_up'), 'offered all the same: the branch can be made again');
  t.ok(before.available_actions.includes('run'), 'and so is run');
  const main = gitSync(box.sb.dir, box.sb.env, ['rev-parse', 'main']).trim();
  const r = await box.l.json('follow-up', id, '-m', 'add the changelog entry');
  t.equal(r.run.code, 0, r.run.stderr);
  t.equal(r.value.task.status, 'working', 'the round runs as a turn');
  t.equal(r.value.run.kind, 'follow_up');
  t.equal(
    gitSync(box.sb.dir, box.sb.env, ['merge-base', '--is-ancestor', before.reviewed_head, `lazy/${id}`]),
    '',
    'lazy/<id> is made again at the head the review recorded, never at the target',
  );
  const v = await settled(box, id, r.value.run.id);
  t.equal(v.status, 'complete', 'back to complete');
  t.same(v.session, null, 'the session the round opened ended with it');
  t.equal(v.consecutive_interruptions, before.consecutive_interruptions);
  const accept = v.changelog.filter((c: any) => c.trigger === 'accept' && c.status === 'complete');
  t.equal(accept.length, 1, 'the verdict (the accept) is untouched');
  t.equal(gitSync(box.sb.dir, box.sb.env, ['rev-parse', 'main']).trim(), main, 'main did not move');
  // The restored branch holds the accepted commit too (main holds its squash): two commits main does not.
  t.equal(onBranch(box, id, 'main'), '2', "the round's commit is on lazy/<id>, not on main");
  const prompt = box.invocations().at(-1)!.prompt;
  t.match(prompt, /add the changelog entry/, "the agent got the person's prompt");
  t.match(prompt, /verdict stands/);
  const text = (await box.l('show', id)).stdout;
  t.match(text, /Follow-ups and repairs \(1\)\n {2}follow-up 1 .* from complete, back to complete/);
  t.match(text, new RegExp(`2 commit\\(s\\) on lazy/${id} are not on main .*lazy reopen ${id} to land them`));
  t.match(v.changelog.at(-1), { trigger: 'round_end', from: 'working', status: 'complete', actor: 'system' });
  t.match(v.changelog.at(-1).reason, /^follow-up 1 completed: back to complete/);
  const log = (await box.l('log', id)).stdout;
  t.match(log, /lazy: follow-up 1 \w+ \(human\)[^\n]*\(complete -> working\)/, 'log shows the round');
  t.match(log, /lazy: follow-up 1 \w+ \(system\)[^\n]*\(working -> complete\)/, 'and its end');
  // reopen is how the round's work lands: the follow-up's head is the reviewed head.
  t.equal((await box.l('reopen', id, '-m', 'land the follow-up')).code, 0);
  const acc = await box.l('accept', id, '--yes');
  t.equal(acc.code, 0, acc.stdout + acc.stderr);
  t.equal(gitSync(box.sb.dir, box.sb.env, ['show', 'main:work-2.txt']), 'turn 2\n', 'the round landed on main');
});

t.test('follow-ups are repeatable: rounds 1 and 2; --command runs a shell command', async (t) => {
  const box = await agentSandbox();
  t.teardown(box.sb.cleanup);
  const id = await accepted(box);
  const one = await box.l.json('follow-up', id, '-m', 'first');
  await settled(box, id, one.value.run.id);
  const two = await box.l.json('follow-up', id, '--command', 'echo hello > cmd.txt && echo done && exit 3');
  t.equal(two.run.code, 0, two.run.stderr);
  t.equal(two.value.task.status, 'complete', 'a command round has run when the command returns');
  const v = await show(box, id);
  const ends = v.changelog.filter((c: any) => c.trigger === 'round_end').map((c: any) => c.reason);
  t.match(ends, [/^follow-up 1 completed/, /^follow-up 2 failed/]);
  const turn = v.turns.find((x: any) => x.run === two.value.run.id && x.role === 'agent');
  t.match(turn.details, {
    mode: 'follow_up',
    agent: 'shell',
    commands: [{ command: 'echo hello > cmd.txt && echo done && exit 3', exit_code: 3, output: 'done' }],
  });
  t.match(turn.content, /exited 3\n\ndone/, "the command's exit code and output's tail are on record");
  t.equal(gitSync(box.sb.dir, box.sb.env, ['show', `lazy/${id}:cmd.txt`]), 'hello\n', 'what it left is committed');
  const text = (await box.l('show', id)).stdout;
  t.match(text, /follow-up 1 .*\n[^\n]*\n[^\n]*\n {2}follow-up 2 .*back to complete \(shell\)/);
  const plain = await box.l('follow-up', id, '--command', 'true');
  t.match(plain.stdout, new RegExp(`^${id}: follow-up 3 ran → back to complete`));
});

t.test('a follow-up on an abandoned task; refused (exit 4) once its branch is gone', async (t) => {
  const box = await agentSandbox();
  t.teardown(box.sb.cleanup);
  const id = await reviewed(box, 'abandon me');
  t.equal((await box.l('reject', id, '-m', 'no')).code, 0);
  const r = await box.l.json('follow-up', id, '-m', 'salvage the tests');
  t.equal(r.run.code, 0, r.run.stderr);
  const v = await settled(box, id, r.value.run.id);
  t.equal(v.status, 'abandoned', 'back to abandoned');
  t.equal(onBranch(box, id, 'main'), '2', 'the round added a commit to the kept branch');
  const gone = await reviewed(box, 'gone');
  t.equal((await box.l('close', gone, '--delete-branch')).code, 0);
  const refused = await box.l.json('follow-up', gone, '-m', 'anything');
  t.equal(refused.run.code, 4);
  t.match(refused.run.stdout, /branch lazy\/\w+ is gone/);
  t.equal((await show(box, gone)).status, 'abandoned');
});

t.test('a repair of a task blocked by a failure: back to blocked, same attention, counters unchanged', async (t) => {
  const box = await agentSandbox();
  t.teardown(box.sb.cleanup);
  box.scenario('auth,succeed');
  const id = await box.l.create('repair me', '--accept', 'done');
  await box.l('start', id);
  await box.l('wait', id, '--timeout', '30');
  const before = await show(box, id);
  t.equal(before.attention.kind, 'failure');
  const r = await box.l.json('repair', id, '-m', 'log in again');
  t.equal(r.run.code, 0, r.run.stderr);
  const v = await settled(box, id, r.value.run.id);
  t.same(attentionFacts(v), attentionFacts(before), 'status, attention and actions as before');
  t.equal(v.consecutive_interruptions, before.consecutive_interruptions);
  t.equal(v.reviewed_head, before.reviewed_head, 'a repair is no review');
  const prompt = box.invocations().at(-1)!.prompt;
  t.match(prompt, /log in again/);
  t.match(prompt, /failure class: fatal_auth/, "the failure's context is added");
  t.match(prompt, /reason: /);
  t.match((await box.l('show', id)).stdout, /repair 1 .* from blocked, back to blocked/);
});

t.test('a repair of an interrupted task: back to interrupted, nothing resumed; refusals elsewhere', async (t) => {
  const box = await agentSandbox();
  t.teardown(box.sb.cleanup);
  box.scenario('hang,succeed');
  const id = await box.l.create('stuck', '--accept', 'done');
  const run = (await box.l.json('start', id)).value.run.id;
  await eventually(async () => box.invocations().length === 1, 20_000, 'the agent');
  t.equal((await box.l('stop', id)).code, 0);
  await settled(box, id, run);
  const before = await show(box, id);
  t.equal(before.status, 'interrupted');
  const r = await box.l.json('repair', id, '-m', 'clean the worktree');
  t.equal(r.run.code, 0, r.run.stderr);
  const v = await settled(box, id, r.value.run.id);
  t.same(attentionFacts(v), attentionFacts(before), 'interrupted, stopped by the user, as before');
  t.equal(v.consecutive_interruptions, before.consecutive_interruptions);
  t.equal((await box.l('list')).code, 0, 'a command reconciles');
  t.equal((await show(box, id)).status, 'interrupted', 'reconcile resumed nothing');
  // Elsewhere: exit 4.
  const fresh = await box.l.create('backlog task', '--accept', 'done');
  t.equal((await box.l('repair', fresh, '-m', 'x')).code, 4, 'no repair of a backlog task');
  t.equal((await box.l('follow-up', fresh, '-m', 'x')).code, 4, 'no follow-up of a backlog task');
  t.equal((await box.l('follow-up', id, '-m', 'x')).code, 4, 'no follow-up of an interrupted task');
  const done = await accepted(box);
  t.equal((await box.l('repair', done, '-m', 'x')).code, 4, 'no repair of a complete task');
});
