import t from 'tap';
import { agentSandbox } from '../helpers/agent.js';
import { cli, gitSync } from '../helpers/env.js';

// Issue 27, belt and braces: a subtask an agent accepted after its parent's review lands work on
// the parent's branch that no person has seen there, so the parent's accept refuses it
// (unreviewed_head) until a review covers it. A person's own accept of a subtask counts as
// reviewed (test/ops/accept-guard.test.ts).

t.test("a subtask the agent accepted after the parent's review leaves the parent's head unreviewed", async (t) => {
  const box = await agentSandbox();
  const { sb, l } = box;
  t.teardown(sb.cleanup);
  const parent = await l.create('the parent', '--accept', 'done');
  await l('start', parent);
  t.equal((await l.json('wait', parent, '--timeout', '30')).value.task.status, 'blocked', 'the parent is reviewed');
  const child = await l.create('the child', '--parent', parent, '--accept', 'done');
  await l('start', child);
  await l('wait', child, '--timeout', '30');

  // What the parent's agent, or a process it left running, would do: lazy accept as actor agent.
  const agent = cli(sb, { LAZY_ACTOR: 'agent' }, { clock: box.clock });
  const took = await agent.json('accept', child, '--yes');
  t.equal(took.run.code, 0, took.run.stdout.slice(0, 300));
  t.equal(took.value.task.changelog.at(-1).actor, 'agent', 'the accept is recorded as the agent’s');

  const refused = await l.json('accept', parent, '--yes');
  t.equal(refused.run.code, 4, "the parent's accept refuses");
  t.match(refused.value.error, {
    code: 'unreviewed_head',
    message: new RegExp(`subtask ${child} accepted by an agent after that review`),
    details: { unreviewed_count: 1, agent_accepted: [child] },
  });
  t.equal(gitSync(sb.dir, sb.env, ['log', '-1', '--format=%s', 'main']).trim(), 'initial commit', 'main did not move');

  // A person sees it in a review: the next turn's review covers the subtask's squash.
  await l('unblock', parent, '-m', 'look at what the child added');
  t.equal((await l.json('wait', parent, '--timeout', '30')).value.task.status, 'blocked');
  const ok = await l.json('accept', parent, '--yes');
  t.equal(ok.run.code, 0, ok.run.stdout.slice(0, 300));
  t.equal(ok.value.task.status, 'complete', 'once a review covers it, the parent lands');
});
