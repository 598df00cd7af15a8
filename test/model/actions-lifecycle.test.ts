import t from 'tap';
import { existsSync } from 'node:fs';
import { agentSandbox, shellScript } from '../helpers/agent.js';
import {
  BUILD,
  EXPECT,
  RESTING,
  built,
  copy,
  env,
  hanging,
  ok,
  refused,
  turn,
  walkLive,
  walkMerging,
  walkPairing,
  walkResting,
} from '../helpers/lifecycle-walk.js';

t.jobs = 4;

// available_actions is exact: in every reachable status, every listed action succeeds given
// valid arguments, and every other one is refused with exit 4. This file walks the second half
// of the resting states (actions-resting.test.ts the first) and the live ones.

t.test(
  'every listed action succeeds and every other one exits 4, in the other resting states and the live ones',
  async (t) => {
    const box = await agentSandbox({ settings: { protected: 'config/**' } });
    t.teardown(box.sb.cleanup);
    const e = env(box);
    await Promise.all(RESTING[1].map((s) => walkResting(t, e, s)));
    // The live states last, so nothing queues in front of their actions; each on its own task.
    const blocked = await built(e, 'blocked');
    await Promise.all([
      hanging(e).then((id) => walkLive(t, e, 'working', id, 'stop')),
      copy(e, blocked).then((c) => walkPairing(t, e, c)),
      copy(e, blocked).then((c) => walkMerging(t, e, c)),
    ]);
    // zombie is never a resting status: recovery moves zombie → complete in one commit.
  },
);

t.test('a listed action the op used to refuse, and an unlisted one it used to run', async (t) => {
  const box = await agentSandbox({ settings: { protected: 'config/**' } });
  t.teardown(box.sb.cleanup);
  const e = env(box);
  const id = await BUILD.blocked!(e);
  const r = await e.run(['answer', id, '-m', 'A']);
  refused(t, r, 'answer', 'a reviewed task', 'blocked');
  t.equal(JSON.parse(r.stdout).error.details.guard, 'decision_pending', 'the refusal names the guard');
  t.notOk((await e.show(id)).available_actions.includes('answer'), 'and answer is not listed');
  const c = await BUILD.conflict!(e);
  t.ok((await e.show(c)).available_actions.includes('accept'), 'conflict lists accept');
  t.equal((await e.run(['accept', c, '--yes', '--revert-all'])).code, 0, 'and accept --revert-all merges it');
  t.equal((await e.show(c)).status, 'complete');
});

t.test('a pending decision is answered or closed: accept and submit are refused naming it', async (t) => {
  const box = await agentSandbox();
  t.teardown(box.sb.cleanup);
  const e = env(box);
  const id = await BUILD.decision!(e);
  for (const a of ['accept', 'submit'] as const) {
    const r = await e.run(a === 'accept' ? ['accept', id, '--yes'] : ['submit', id]);
    refused(t, r, a, 'a task with a pending decision', 'blocked');
    const err = JSON.parse(r.stdout).error;
    t.equal(err.details.guard, 'no_pending_decision', `${a}: the refusal names the guard`);
    t.match(err.message, /Should I use approach A or approach B\?/, `${a}: and the pending decision`);
  }
  t.equal((await e.show(id)).status, 'blocked', 'nothing was merged');
  // unblock stays: its feedback is the answer (docs/lifecycle.md, unblock).
  await turn(e, id, ['unblock', id, '-m', 'approach A'], 'succeed');
  const v = await e.show(id);
  t.equal(v.turns.filter((x: any) => x.kind === 'answer').at(-1)?.content, 'approach A', 'the feedback answered it');
  t.ok(v.available_actions.includes('accept'), 'answered and reviewed: accept is listed again');
});

t.test('until a task has a criterion nothing runs an agent on it, pairs on it or accepts it', async (t) => {
  const box = await agentSandbox();
  t.teardown(box.sb.cleanup);
  const e = env(box);
  const id = await BUILD.clarify!(e);
  const launches = box.invocations().length;
  for (const a of ['ask', 'pair', 'accept', 'submit'] as const) {
    const r = await e.run(
      a === 'ask' ? ['ask', id, '-m', 'what?'] : a === 'accept' ? ['accept', id, '--yes'] : [a, id],
    );
    refused(t, r, a, 'a task without a criterion', 'blocked');
  }
  t.equal(box.invocations().length, launches, 'no agent was launched');
  t.equal((await e.show(id)).turns.filter((x: any) => x.kind === 'pair').length, 0, 'and nobody paired');
  // Its answer becomes the criterion, and the first turn runs.
  await turn(e, id, ['answer', id, '-m', 'the file exists'], 'succeed');
  const v = await e.show(id);
  t.same(v.acceptance, ['the file exists']);
  t.ok(v.available_actions.includes('accept'), 'now it can be accepted');
});

t.test(
  'reopen: a complete task no agent ever worked on goes back to backlog; one with agent work to blocked',
  async (t) => {
    const box = await agentSandbox();
    t.teardown(box.sb.cleanup);
    const e = env(box);
    // Never started by an agent: a clarify question, a person gives it a criterion and pairs on it, the pairing is
    // accepted (without the criterion neither pair nor accept is allowed).
    const id = await BUILD.clarify!(e);
    refused(t, await e.run(['pair', id]), 'pair', 'a task without a criterion', 'blocked');
    await ok(e, ['edit', id, '--accept', 'manual.txt exists']);
    const shell = shellScript(
      box.sb,
      'pair-commit.sh',
      'echo by hand > manual.txt\ngit add manual.txt && git commit -q -m "human: by hand"\n',
    );
    await ok(e, ['pair', id], { SHELL: shell });
    await ok(e, ['accept', id, '--yes']);
    t.equal((await e.show(id)).session, null, 'no session was ever opened');
    const back = (await ok(e, ['reopen', id, '-m', 'the manual fix is incomplete'])).task;
    t.equal(back.status, 'backlog', 'complete → backlog: there is no agent work to review');
    // A mutation's {task} carries the table's list: run too (a session made the branch once), which show drops while
    // there is no branch here.
    t.same(back.available_actions, [...EXPECT.backlog, 'run']);
    t.same((await e.show(id)).available_actions, EXPECT.backlog);
    t.equal((await e.run(['reopen', id])).code, 4, 'and it is not terminal any more');

    const worked = await BUILD.complete!(e);
    const again = (await ok(e, ['reopen', worked, '-m', 'the tests fail on main'])).task;
    t.equal(again.status, 'blocked', 'complete → blocked when an agent worked on it');
    t.equal(again.session, null, 'the accepted session stays ended: the next turn opens a new one');
    t.notOk(again.available_actions.includes('accept'), 'nothing to accept until a turn works on it again');
    await turn(e, worked, ['unblock', worked, '-m', 'fix it'], 'succeed');
    const v = await e.show(worked);
    t.equal(v.status, 'blocked');
    t.equal(v.sessions.length, 2, 'the turn after the reopen ran in a new session');
    t.ok(v.available_actions.includes('accept'), 'and its work can be accepted');
    t.ok(existsSync(box.sb.dir));
  },
);
