import t from 'tap';
import { parkStatus } from '../../lib/model/park.js';
import type { PendingViolation } from '../../lib/model/fold.js';
import { decision, view, violation, walk } from '../helpers/docs.js';

// Reference: conflict is DERIVED, never asserted: the label a paused task wears while
// its pending violation set is non-empty.

const pv = (file: string): PendingViolation => ({ file, run: 'r', commit: 'c', base: 'b', since: 's' });

t.test('parkStatus: blocked or conflict from the pending set alone', async (t) => {
  const rows: [string, PendingViolation[], 'blocked' | 'conflict'][] = [
    ['nothing pending parks as blocked', [], 'blocked'],
    ['one pending file parks as conflict', [pv('a.lock')], 'conflict'],
    ['several pending files park as conflict', [pv('a.lock'), pv('b.lock')], 'conflict'],
  ];
  for (const [pins, pending, status] of rows) t.equal(parkStatus({ pending_violations: pending }), status, pins);
});

t.test('parkStatus over folded histories', async (t) => {
  const log = walk(['working', 'start'], ['blocked', 'turn_complete']);
  t.equal(parkStatus(view({ changelog: log })), 'blocked', 'a clean turn');
  t.equal(parkStatus(view({ changelog: log, violations: [violation(3, 'a.lock')] })), 'conflict', 'a pending file');
  t.equal(
    parkStatus(
      view({ changelog: log, violations: [violation(3, 'a.lock')], decisions: [decision(4, 'a.lock', 'revert')] }),
    ),
    'blocked',
    'every file decided',
  );
  // Reference: a turn that ran no permission check reports nothing, and that never clears a pending set.
  t.equal(
    parkStatus(view({ changelog: [...log], violations: [violation(3, 'a.lock')], decisions: [] })),
    'conflict',
    'only a decision clears a pending file',
  );
});
