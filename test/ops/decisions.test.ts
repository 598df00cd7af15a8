import t from 'tap';
import { planDecisions, type DecisionFlags, type Planned } from '../../lib/ops/decisions.js';
import { decision, view, violation, walk } from '../helpers/docs.js';

// Reference: leaving conflict takes an explicit approve or revert decision on every
// pending protected file; neither unblock nor accept infers one. A decision already made
// is sticky: a later call decides only what is still pending, and re-naming a decided file
// is accepted and changes nothing.

const conflict = walk(['working', 'start'], ['conflict', 'turn_complete']);
const task = (files: string[], decided: [string, 'approve' | 'revert'][] = []) =>
  view({
    changelog: conflict,
    violations: files.map((f, i) => violation(3 + i, f)),
    decisions: decided.map(([f, d], i) => decision(20 + i, f, d)),
  });
const AB = task(['a.lock', 'b.lock']);

t.test('planDecisions: the flags decide every pending file, or nothing is planned', async (t) => {
  const rows: [pins: string, flags: DecisionFlags, planned: Planned[]][] = [
    [
      'each file named',
      { approve: ['a.lock'], revert: ['b.lock'] },
      [
        { file: 'a.lock', decision: 'approve' },
        { file: 'b.lock', decision: 'revert' },
      ],
    ],
    [
      '--approve-all',
      { approveAll: true },
      [
        { file: 'a.lock', decision: 'approve' },
        { file: 'b.lock', decision: 'approve' },
      ],
    ],
    [
      '--revert-all',
      { revertAll: true },
      [
        { file: 'a.lock', decision: 'revert' },
        { file: 'b.lock', decision: 'revert' },
      ],
    ],
    [
      'a file named to approve beside --revert-all is approved',
      { approve: ['a.lock'], revertAll: true },
      [
        { file: 'a.lock', decision: 'approve' },
        { file: 'b.lock', decision: 'revert' },
      ],
    ],
    [
      'a file named to revert beside --approve-all is reverted (a named file wins over *-all)',
      { revert: ['a.lock'], approveAll: true },
      [
        { file: 'a.lock', decision: 'revert' },
        { file: 'b.lock', decision: 'approve' },
      ],
    ],
    [
      'naming a file that is not pending is accepted and changes nothing',
      { approve: ['a.lock', 'b.lock', 'never-flagged.txt'] },
      [
        { file: 'a.lock', decision: 'approve' },
        { file: 'b.lock', decision: 'approve' },
      ],
    ],
  ];
  for (const [pins, flags, planned] of rows) {
    for (const action of ['unblock', 'accept'] as const)
      t.same(planDecisions(AB, flags, action), planned, `${action}: ${pins}`);
  }
});

t.test('planDecisions: decisions are sticky', async (t) => {
  const half = task(['a.lock', 'b.lock'], [['a.lock', 'approve']]);
  t.same(
    half.pending_violations.map((p) => p.file),
    ['b.lock'],
    'a.lock is decided',
  );
  t.same(
    planDecisions(half, { revert: ['b.lock'] }, 'unblock'),
    [{ file: 'b.lock', decision: 'revert' }],
    'only the pending file needs a decision; silence never re-reverts the approved one',
  );
  t.same(
    planDecisions(half, { revertAll: true }, 'unblock'),
    [{ file: 'b.lock', decision: 'revert' }],
    '--revert-all reaches only what is still pending',
  );
  t.same(
    planDecisions(half, { revert: ['a.lock', 'b.lock'] }, 'unblock'),
    [{ file: 'b.lock', decision: 'revert' }],
    're-naming a decided file is accepted and does not re-decide it',
  );
  const none = task(['a.lock'], [['a.lock', 'revert']]);
  t.same(planDecisions(none, {}, 'accept'), [], 'nothing pending: nothing to decide, nothing refused');
  t.same(planDecisions(view(), {}, 'unblock'), [], 'a task never flagged');
});

t.test('planDecisions: refusals', async (t) => {
  const rows: [pins: string, flags: DecisionFlags, error: { code: string; [k: string]: unknown }][] = [
    [
      'silence is no decision (exit 4, naming the undecided files)',
      {},
      {
        code: 'action_not_allowed',
        exitCode: 4,
        message: /^unblock needs a decision on every protected file first: a\.lock, b\.lock \(use/,
        details: { action: 'unblock', status: 'conflict', pending_files: ['a.lock', 'b.lock'] },
      },
    ],
    [
      'a decision on some files is refused while others are undecided',
      { approve: ['a.lock'] },
      { code: 'action_not_allowed', exitCode: 4, details: { pending_files: ['b.lock'] } },
    ],
    [
      '--approve-all and --revert-all contradict each other (usage)',
      { approveAll: true, revertAll: true },
      { code: 'usage', exitCode: 2, message: /contradict/ },
    ],
    [
      'one file both approved and reverted (usage)',
      { approve: ['a.lock', 'b.lock'], revert: ['b.lock'] },
      { code: 'usage', exitCode: 2, message: 'a file cannot be both approved and reverted: b.lock' },
    ],
    ['a contradiction is refused even when nothing is pending', { approve: ['x'], revert: ['x'] }, { code: 'usage' }],
  ];
  for (const [pins, flags, error] of rows) {
    const v = pins.includes('nothing is pending') ? view() : AB;
    t.throws(() => planDecisions(v, flags, 'unblock'), error, pins);
  }
  t.throws(
    () => planDecisions(AB, {}, 'accept'),
    { message: /^accept needs a decision/, details: { action: 'accept', available_actions: AB.available_actions } },
    'the refusal names the action it refuses and what the task offers',
  );
});
