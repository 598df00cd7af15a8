import t from 'tap';
import { planResume } from '../../lib/agents/turns.js';
import { Draft } from '../../lib/store/draft.js';
import { foldTask } from '../../lib/model/fold.js';
import type { TaskDocs } from '../../lib/model/docs.js';
import type { Status } from '../../lib/model/status.js';
import type { Trigger } from '../../lib/model/table.js';
import { docs, turn, walk } from '../helpers/docs.js';

// The crash/resume lifecycle of the reference (lazy-state-machine.md, sections 5, 6 and
// 7b): a clean worktree merges upstream before the agent resumes, a dirty one does not;
// the agent is told why it is resumed; feedback the interrupted turn never acted on is
// re-delivered verbatim, newest first, and a queue is never collapsed.

const RUN = { id: 'run00002', host: 'here', session: 'sess0001' };
const ctx = {
  actor: 'system' as const,
  person: { name: 'L', email: 'l@x' },
  host: 'here',
  clone: 'clone0001',
  now: '2026-01-02T00:00:00.000Z',
};

function crashed(steps: [Status, Trigger][], more: Partial<TaskDocs> = {}): Draft {
  const changelog = walk(['working', 'start'], ...steps);
  changelog[1]!.run = 'run00001';
  const last = changelog.at(-1)!;
  last.reason = 'exit 137';
  last.details = { exit_code: 137, signal: 'SIGKILL' };
  const d0 = docs({ changelog, ...more });
  d0.task = { ...d0.task, goal: 'Add a cache', acceptance: ['tests pass'] };
  return new Draft(d0, foldTask(d0), ctx, 'resume');
}
const crash: [Status, Trigger] = ['interrupted', 'turn_crashed'];

t.test('planResume: the reference crash/resume paths', async (t) => {
  const rows: [
    pins: string,
    trigger: 'auto_resume' | 'resume',
    dirty: boolean,
    merge: boolean,
    says: RegExp[],
    not: RegExp[],
  ][] = [
    [
      'auto-resume, clean worktree: merge upstream first and say so',
      'auto_resume',
      false,
      true,
      [/^You are being resumed after a crash\. Upstream \(main\) has been merged/, /verify before continuing/],
      [/uncommitted changes/],
    ],
    [
      'auto-resume, dirty worktree: skip the merge, review the uncommitted changes',
      'auto_resume',
      true,
      false,
      [/There are uncommitted changes in your worktree/, /commit or discard/],
      [/has been merged/],
    ],
    ['lazy resume, clean: the same merge', 'resume', false, true, [/has been merged/], []],
    ['lazy resume, dirty: the same skip', 'resume', true, false, [/uncommitted changes/], [/has been merged/]],
  ];
  for (const [pins, trigger, dirty, merge, says, not] of rows) {
    const d = crashed([crash]);
    const plan = planResume(d, RUN, {
      actor: trigger === 'auto_resume' ? 'system' : 'human',
      trigger,
      dirty,
      upstream: 'main',
    });
    t.equal(plan.mergeUpstream, merge, `${pins}: merge upstream ${merge}`);
    for (const re of says) t.match(plan.prompt, re, `${pins}: says ${re}`);
    for (const re of not) t.notMatch(plan.prompt, re, `${pins}: does not say ${re}`);
    t.match(
      plan.prompt,
      /Previous failure[\s\S]*- class: unknown\n- reason: exit 137\n- exit code 137, signal SIGKILL/,
      `${pins}: names the failure`,
    );
    t.match(plan.prompt, /Continue the task\.[\s\S]*Add a cache/, `${pins}: with nothing pending, the task itself`);
    t.same(
      d.changes.map((c) => [c.from, c.to, c.trigger, c.actor, c.run]),
      [['interrupted', 'working', trigger, trigger === 'auto_resume' ? 'system' : 'human', RUN.id]],
      `${pins}: interrupted → working on ${trigger}, stamped with the run`,
    );
    t.same(
      d.turns.map((x) => [x.role, x.kind, x.actor, x.content]),
      [
        [
          'system',
          'resume',
          trigger === 'auto_resume' ? 'system' : 'human',
          trigger === 'auto_resume'
            ? '[system] Session interrupted and auto-resumed'
            : '[system] Resumed by hand after an interruption',
        ],
      ],
      `${pins}: the synthetic resume turn`,
    );
    t.notOk(d.turns[0]!.feedback, `${pins}: the resume turn carries no feedback of its own`);
  }
});

t.test('planResume: feedback the interrupted turn never acted on is re-delivered verbatim', async (t) => {
  const d = crashed([crash], {
    turns: [
      turn(2, 'human', 'prompt', { feedback: 'pending', content: 'the task prompt' }),
      turn(3, 'agent', 'result', { consumes: ['t0000002'] }),
      turn(4, 'human', 'feedback', { feedback: 'pending', content: 'older: use redis' }),
      turn(5, 'human', 'feedback', { feedback: 'pending', content: 'newest: and add a TTL\n  exactly as typed  ' }),
    ],
  });
  const plan = planResume(d, RUN, { actor: 'system', trigger: 'auto_resume', dirty: false, upstream: 'main' });
  t.match(
    plan.prompt,
    /Feedback that your interrupted turn had not acted on yet, verbatim:\n\nnewest: and add a TTL\n {2}exactly as typed {2}\n/,
    'the newest, verbatim, first',
  );
  t.match(
    plan.prompt,
    /\(1 older feedback message is also pending and was not acted on: #3\./,
    'the older one is counted',
  );
  t.match(plan.prompt, /#3:\nolder: use redis/, 'and reproduced verbatim');
  t.notMatch(plan.prompt, /the task prompt/, 'consumed feedback is not re-delivered');
  t.notMatch(plan.prompt, /Continue the task\./, 'the redelivery replaces the generic resume');
});

t.test('planResume: a stop is never called a crash', async (t) => {
  const d = crashed([['interrupted', 'stop']]);
  const plan = planResume(d, RUN, { actor: 'human', trigger: 'resume', dirty: false, upstream: 'main' });
  t.match(
    plan.prompt,
    /^You are being resumed after the user stopped your previous turn with lazy stop\. It did not crash or fail\./,
  );
  t.notMatch(plan.prompt, /Previous failure/, 'no failure report');
});
