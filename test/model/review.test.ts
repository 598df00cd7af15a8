import t from 'tap';
import { isReviewTurn, reviewedHead } from '../../lib/model/review.js';
import type { DecisionEntry, TurnEntry } from '../../lib/model/docs.js';
import { decision, docs, turn, REVIEW } from '../helpers/docs.js';

// The review package: the head a reviewer saw, and what accept may merge.

const H = (c: string) => c.repeat(40);
const reviewed = (clock: number, head: string, more: Partial<TurnEntry> = {}) =>
  turn(clock, 'agent', 'result', { details: { review: { head } }, ...more });

t.test('isReviewTurn: a work turn or a pairing session carrying a full commit id', async (t) => {
  const rows: [string, TurnEntry, boolean][] = [
    ['an agent work turn with a review', turn(2, 'agent', 'result', { details: REVIEW }), true],
    ['a pairing session with a review', turn(2, 'human', 'pair', { details: REVIEW }), true],
    ['an ask is never reviewed', turn(2, 'agent', 'result', { details: { ...REVIEW, mode: 'ask' } }), false],
    ['a human turn that is not a pairing', turn(2, 'human', 'feedback', { details: REVIEW }), false],
    ['no review detail', turn(2, 'agent', 'result'), false],
    ['a short head', turn(2, 'agent', 'result', { details: { review: { head: 'abc' } } }), false],
    ['an upper-case head', turn(2, 'agent', 'result', { details: { review: { head: 'A'.repeat(40) } } }), false],
    [
      'a head with trailing text',
      turn(2, 'agent', 'result', { details: { review: { head: 'a'.repeat(40) + ' x' } } }),
      false,
    ],
    ['a review that is a list', turn(2, 'agent', 'result', { details: { review: ['a'.repeat(40)] } }), false],
    ['a review that is a string', turn(2, 'agent', 'result', { details: { review: 'a'.repeat(40) } }), false],
  ];
  for (const [pins, tv, expected] of rows) t.equal(isReviewTurn(tv), expected, pins);
});

t.test('reviewedHead: the latest review, moved on by lazy’s own revert commits after it', async (t) => {
  const withCommit = (d: DecisionEntry, c: string) => ({ ...d, commit: c });
  const rows: [string, TurnEntry[], DecisionEntry[], { head: string; turn: string } | null][] = [
    ['no review, nothing to merge', [turn(2, 'agent', 'error')], [], null],
    ['the one review', [reviewed(2, H('1'))], [], { head: H('1'), turn: 't0000002' }],
    ['the latest review wins', [reviewed(2, H('1')), reviewed(4, H('2'))], [], { head: H('2'), turn: 't0000004' }],
    [
      'a later failed turn does not hide the reviewed head',
      [reviewed(2, H('1')), turn(4, 'agent', 'error')],
      [],
      { head: H('1'), turn: 't0000002' },
    ],
    [
      'a revert commit after the review moves the head',
      [reviewed(2, H('1'))],
      [withCommit(decision(3, 'a.lock', 'revert'), H('3'))],
      { head: H('3'), turn: 't0000002' },
    ],
    [
      'the last of several reverts',
      [reviewed(2, H('1'))],
      [withCommit(decision(3, 'a', 'revert'), H('3')), withCommit(decision(5, 'b', 'revert'), H('5'))],
      { head: H('5'), turn: 't0000002' },
    ],
    [
      'an approve makes no commit',
      [reviewed(2, H('1'))],
      [decision(3, 'a.lock', 'approve')],
      { head: H('1'), turn: 't0000002' },
    ],
    [
      'a revert before the review is already in it',
      [reviewed(4, H('1'))],
      [withCommit(decision(3, 'a.lock', 'revert'), H('3'))],
      { head: H('1'), turn: 't0000004' },
    ],
  ];
  for (const [pins, turns, decisions, expected] of rows)
    t.same(reviewedHead(docs({ turns, decisions })), expected, pins);
});
