import t from 'tap';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gitSync } from '../helpers/env.js';
import { agentSandbox, eventually, readJson, runDirOf, type AgentBox } from '../helpers/agent.js';
import { attentionFacts, parked, worktreeStatus } from '../helpers/ask.js';

t.jobs = 4;

// issue 9, "Ask": an ask is status-neutral whatever ends it, what it leaves in the worktree
// is set aside and never committed, and the review and inbox come from the latest work turn.

const askStashes = (box: AgentBox) =>
  gitSync(box.sb.dir, box.sb.env, ['stash', 'list', '--format=%H %gs'])
    .split('\n')
    .filter((l) => l.includes('lazy ask '));

const stashFiles = (box: AgentBox, commit: string) =>
  gitSync(box.sb.dir, box.sb.env, ['diff', '--name-only', `${commit}^1`, commit])
    .trim()
    .split('\n')
    .sort();

t.test("the inbox reason and the review come from the latest work turn, never from an ask's reply", async (t) => {
  const box = await agentSandbox();
  t.teardown(box.sb.cleanup);
  const { id, before } = await parked(box, 'succeed,litter');
  t.equal(before.attention.reason, 'did turn 1');
  const asked = await box.l('ask', id, '-m', 'what is the answer?');
  t.equal(asked.code, 0, asked.stderr);
  t.match(asked.stdout, /^answer: 42/, "ask prints the agent's answer");
  const after = (await box.l.json('show', id)).value;
  t.same(
    attentionFacts(after),
    attentionFacts(before),
    'status, attention, actions and pending feedback are as before the ask',
  );
  const inbox = (await box.l.json('inbox')).value;
  const row = inbox.find((r: any) => r.id === id);
  t.match(
    row,
    { attention: { kind: 'review', reason: 'did turn 1' } },
    "inbox --json: the review reason is the work turn's",
  );
  // Nothing of the reply ("answer: 42"); the id and the timestamp are random and may hold a 42.
  t.notMatch(JSON.stringify({ ...row, id: undefined, attention: { ...row.attention, since: undefined } }), /42/);
  const show = (await box.l('show', id)).stdout;
  t.match(show, /status: {4}blocked — review: did turn 1/);
  t.match(show, /Review \(turn #2/, 'the review package is the work turn (#2), not the ask (#4)');
  t.match(show, /#3 human\/question[^\n]*\n\s+what is the answer\?/, 'the question is in the turns');
  t.match(show, /#4 agent\/result[^\n]*\n\s+answer: 42/, 'and so is its answer');
  t.notMatch(show, /feedback pending/, "an ask's question is never left pending for a work turn");
});

t.test(
  'what an ask leaves in the worktree is set aside, never committed; accept merges the reviewed head',
  async (t) => {
    const box = await agentSandbox();
    t.teardown(box.sb.cleanup);
    const { id, before, wt, head } = await parked(box, 'succeed,litter');
    const asked = await box.l.json('ask', id, '-m', 'anything to add?');
    t.equal(asked.run.code, 0);
    const aside = asked.value.answer.details.set_aside;
    t.ok(aside?.stash, 'the answer records where the leftovers went');
    t.same(aside.files.sort(), ['staged-2.txt', 'stray-2.txt', 'work-1.txt']);
    const text = (await box.l('show', id)).stdout;
    t.match(text, new RegExp(`kept in stash ${aside.stash}`), 'show tells where');
    t.equal(worktreeStatus(box, wt), '', 'the task worktree is clean again');
    t.equal(gitSync(wt, box.sb.env, ['rev-parse', 'HEAD']).trim(), head, 'nothing was committed');
    t.equal(readFileSync(join(wt, 'work-1.txt'), 'utf8'), 'turn 1\n', 'the tracked file is back');
    t.same(
      askStashes(box).map((l) => l.split(' ')[0]),
      [aside.stash],
      'git stash list holds the leftovers, with a clear message',
    );
    t.match(askStashes(box)[0], new RegExp(`lazy ask ${id}: what ask run \\w+ left in the task worktree`));
    t.same(
      stashFiles(box, aside.stash),
      ['staged-2.txt', 'stray-2.txt', 'work-1.txt'],
      'the stash holds exactly what the ask left',
    );
    t.same(attentionFacts((await box.l.json('show', id)).value), attentionFacts(before));
    const ok = await box.l.json('accept', id, '--yes');
    t.equal(ok.run.code, 0, `accept works on the reviewed head: ${ok.run.stdout.slice(0, 300)}`);
    const landed = gitSync(box.sb.dir, box.sb.env, ['ls-tree', '-r', '--name-only', 'main']);
    t.match(landed, /work-1\.txt/);
    t.notMatch(landed, /stray|staged/, 'nothing the ask left landed');
  },
);

t.test('uncommitted work from before the ask stays in place and is not attributed to the ask', async (t) => {
  const box = await agentSandbox();
  t.teardown(box.sb.cleanup);
  const { id, wt } = await parked(box, 'succeed,litter,succeed');
  writeFileSync(join(wt, 'work-1.txt'), 'turn 1\nmy own edit\n');
  writeFileSync(join(wt, 'mine.txt'), 'my untracked note\n');
  writeFileSync(join(wt, 'mine-staged.txt'), 'staged by me\n');
  gitSync(wt, box.sb.env, ['add', 'mine-staged.txt']);
  const mine = worktreeStatus(box, wt);
  const asked = await box.l.json('ask', id, '-m', 'what do you think of my edits?');
  t.equal(asked.run.code, 0);
  t.equal(worktreeStatus(box, wt), mine, 'git status is exactly what it was before the ask');
  t.equal(readFileSync(join(wt, 'work-1.txt'), 'utf8'), 'turn 1\nmy own edit\n');
  t.ok(existsSync(join(wt, 'mine.txt')));
  t.notOk(existsSync(join(wt, 'stray-2.txt')));
  const stash = asked.value.answer.details.set_aside.stash;
  t.same(stashFiles(box, stash), ['staged-2.txt', 'stray-2.txt', 'work-1.txt']);
  const patch = gitSync(box.sb.dir, box.sb.env, ['diff', `${stash}^1`, stash, '--', 'work-1.txt']);
  t.match(patch, /^\+edited by the ask$/m, "the stash holds the ask's edit");
  t.notMatch(patch, /^\+my own edit$/m, 'and not mine');
  // The next work turn commits the person's work, never the ask's.
  await box.l('unblock', id, '-m', 'go on');
  t.equal((await box.l.json('wait', id, '--timeout', '60')).run.code, 0);
  const files = gitSync(wt, box.sb.env, ['ls-tree', '-r', '--name-only', 'HEAD']);
  t.match(files, /mine\.txt/);
  t.notMatch(files, /stray-2|staged-2/, "the next unblock did not commit the ask's leftovers");
  t.notMatch(gitSync(wt, box.sb.env, ['show', 'HEAD:work-1.txt']), /edited by the ask/);
});

t.test('stop during an ask returns the task to its status with its review intact', async (t) => {
  const box = await agentSandbox();
  t.teardown(box.sb.cleanup);
  const { id, before, wt } = await parked(box, 'succeed,litter-hang');
  const asking = box.l.json('ask', id, '-m', 'take your time');
  await eventually(
    () => box.invocations().length === 2 && existsSync(join(wt, 'stray-2.txt')),
    20000,
    'the ask to write',
  );
  const stopped = await box.l('stop', id);
  t.equal(stopped.code, 0, stopped.stderr);
  t.match(stopped.stdout, new RegExp(`${id}: ask stopped .*; back to blocked — review: did turn 1`));
  t.match(stopped.stdout, /kept in stash [0-9a-f]{40}/, 'stop says where the leftovers went');
  const after = (await box.l.json('show', id)).value;
  t.same(attentionFacts(after), attentionFacts(before), 'blocked, same review reason, same actions');
  t.notOk(
    after.changelog.some((c: any) => c.status === 'interrupted'),
    'never interrupted',
  );
  t.equal(worktreeStatus(box, wt), '', 'what the ask left is gone from the worktree');
  t.equal((await asking).run.code, 0, 'the waiting ask returns');
  await box.l('list');
  t.equal(box.invocations().length, 2, 'nothing was resumed as work');
  const ok = await box.l.json('accept', id, '--yes');
  t.equal(ok.run.code, 0, ok.run.stdout.slice(0, 300));
});

t.test('SIGKILL of the agent during an ask: back to conflict, not resumed', async (t) => {
  const box = await agentSandbox({ settings: { protected: 'config/**' } });
  t.teardown(box.sb.cleanup);
  const { id, before, wt } = await parked(box, 'protected,litter-hang', 'touch secrets');
  t.equal(before.status, 'conflict');
  const asking = box.l.json('ask', id, '-m', 'why the secrets?');
  const inv = await eventually(() => box.invocations()[1], 20000, 'the ask agent');
  await eventually(() => existsSync(join(wt, 'stray-2.txt')), 20000, 'the ask to write');
  process.kill(inv.pid, 'SIGKILL');
  t.equal((await asking).run.code, 0);
  await box.l('list');
  const after = (await box.l.json('show', id)).value;
  t.same(attentionFacts(after), attentionFacts(before), 'conflict, with its attention and actions');
  t.equal(worktreeStatus(box, wt), '');
  t.equal(box.invocations().length, 2, 'not resumed');
});

t.test('a watchdog kill and a failure during an ask keep failure and decision attention as they were', async (t) => {
  const box = await agentSandbox({ adapter: 'claude' });
  t.teardown(box.sb.cleanup);
  const { id, before } = await parked(box, 'auth,litter-hang', 'fails first');
  t.equal(before.attention.kind, 'failure');
  // A short watchdog for the hanging ask only: under load, a slow start of any other turn would trip it.
  t.equal((await box.l('config', 'set', 'watchdog_ms', '1500')).code, 0);
  t.equal((await box.l('ask', id, '-m', 'still there?')).code, 0);
  t.equal((await box.l('config', 'unset', 'watchdog_ms')).code, 0);
  // Under load the watchdog can kill the ask before the agent began; the next ask must not inherit the hang.
  box.next('auth,question,litter');
  const watchdog = (await box.l.json('show', id)).value;
  t.match(watchdog.turns.at(-1).content, /watchdog/, 'the watchdog ended the ask');
  t.same(attentionFacts(watchdog), attentionFacts(before), 'after a watchdog kill');
  t.equal((await box.l('ask', id, '-m', 'and now?')).code, 0);
  t.same(attentionFacts((await box.l.json('show', id)).value), attentionFacts(before), 'after a failed ask');

  const q = await box.l.create('asks back', '--accept', 'done');
  await box.l('start', q);
  await box.l('wait', q, '--timeout', '60');
  const decision = (await box.l.json('show', q)).value;
  t.equal(decision.attention.kind, 'decision');
  await box.l('ask', q, '-m', 'which would you pick?');
  t.same(
    attentionFacts((await box.l.json('show', q)).value),
    attentionFacts(decision),
    'the pending decision is still the question',
  );
});

t.test("stop during an ask whose supervisor does not answer returns the task by the table's stop edge", async (t) => {
  const box = await agentSandbox({ detached: true }); // the test stops the supervisor: a process of its own
  t.teardown(box.sb.cleanup);
  const { id, before, wt } = await parked(box, 'succeed,litter-hang');
  const asking = box.l.json('ask', id, '-m', 'are you there?', '--timeout', '90');
  await eventually(
    () => box.invocations().length === 2 && existsSync(join(wt, 'stray-2.txt')),
    20000,
    'the ask to write',
  );
  const run = (await box.l.json('show', id)).value.current_run;
  const rec = await eventually(() => {
    const r = readJson(join(runDirOf(box.sb, run), 'run.json'));
    return r.supervisor ? r : undefined;
  });
  process.kill(rec.supervisor.pid, 'SIGSTOP'); // alive, but records nothing
  t.teardown(() => {
    try {
      process.kill(rec.supervisor.pid, 'SIGCONT');
    } catch {
      /* gone */
    }
  });
  const stopped = await box.l.json('stop', id);
  t.equal(stopped.run.code, 0, stopped.run.stderr);
  const back = stopped.value.task.changelog.at(-1);
  t.match(
    back,
    { from: 'working', status: 'blocked', trigger: 'stop', run },
    'working -> blocked by stop, for the ask run',
  );
  t.same(attentionFacts(stopped.value.task), attentionFacts(before), 'the review is intact at once');
  process.kill(rec.supervisor.pid, 'SIGCONT');
  // The supervisor, once it runs again, records the answer turn without moving the task and sets the leftovers aside.
  await eventually(
    async () => (await box.l.json('show', id)).value.turns.some((x: any) => x.run === run && x.role === 'agent'),
    20000,
    'the late record',
  );
  await eventually(() => worktreeStatus(box, wt) === '', 10000, 'the leftovers set aside');
  t.same(attentionFacts((await box.l.json('show', id)).value), attentionFacts(before));
  t.equal((await asking).run.code, 0);
  t.equal(box.invocations().length, 2, 'nothing was resumed as work');
});
