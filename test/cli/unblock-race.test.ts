import t, { type Test } from 'tap';
import { join } from 'node:path';
import { withLock } from '../../lib/core/lock.js';
import { agentSandbox, eventually, reviewed } from '../helpers/agent.js';

// issue 28: two `lazy unblock` processes race on one blocked task. Both looked before either held the
// task's lock, so the loser finds the task working only under it: its feedback queues behind the
// winner's turn (as an unblock on a working task does), and both feedbacks reach the agent, in order.

async function race(t: Test, first: string): Promise<void> {
  const box = await agentSandbox({ detached: true });
  t.teardown(box.sb.cleanup);
  const { sb, l } = box;
  box.scenario(first);
  const id = await reviewed(box);
  box.scenario('slow-succeed');
  const open = box.gate(); // the winner's turn works until the loser has queued behind it
  // The test holds the task's lock while both processes start: each reads the task blocked, then waits
  // for the lock. (A process slower than this window reads it working and queues: it passes either way.)
  let release = () => {};
  const held = new Promise<void>((r) => (release = r));
  const holding = withLock(join(sb.dir, '.git', 'lazy'), id, () => held);
  const runs = ['first feedback', 'second feedback'].map((m) =>
    l.spawnWithin(120_000, 'unblock', id, '-m', m, '--json'),
  );
  await new Promise((r) => setTimeout(r, 4000));
  release();
  await holding;
  const [a, b] = await Promise.all(runs);
  t.equal(a!.code, 0, `the first unblock succeeds (${a!.stdout}${a!.stderr})`);
  t.equal(b!.code, 0, `the second unblock succeeds (${b!.stdout}${b!.stderr})`);
  const queued = [a!, b!].map((r) => JSON.parse(r.stdout)).filter((o) => o.queued);
  t.equal(queued.length, 1, 'one launched a turn, the other queued its feedback behind it');
  open();
  if (a!.code || b!.code) return; // one was refused: there is no second turn to wait for
  await eventually(
    async () => {
      const v = (await l.json('show', id)).value;
      return v.status === 'blocked' && v.turns.filter((x: any) => x.role === 'agent').length === 3;
    },
    90_000,
    'both turns to end',
  );
  const v = (await l.json('show', id)).value;
  // On a pending decision the winner's feedback is the answer.
  const fed = v.turns
    .filter((x: any) => x.role === 'human' && ['feedback', 'answer'].includes(x.kind))
    .map((x: any) => x.content);
  t.same([...fed].sort(), ['first feedback', 'second feedback'], 'both feedbacks are recorded');
  const prompts = box
    .invocations()
    .slice(-2)
    .map((i) => i.prompt);
  t.match(prompts[0], fed[0], 'the turn the winner launched delivers its feedback');
  t.notMatch(prompts[0], fed[1], 'and not the queued one');
  t.match(prompts[1], fed[1], 'the next turn delivers the queued feedback');
}

t.test('two concurrent unblocks on a blocked task both succeed, and both feedbacks reach the agent in order', (t) =>
  race(t, 'succeed'),
);

t.test('the same on a pending decision: the first answers it, the second queues behind that turn', (t) =>
  race(t, 'question'),
);
