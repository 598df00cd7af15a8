import t from 'tap';
import { STATUSES, type Status, categoryOf } from '../lib/model/status.js';
import { canTransition, statusActions, EDGES, ACTIONS } from '../lib/model/table.js';

// The expected table, transcribed independently from the reference state machine
// (submitted is a forge status lazy does not have).
const ALLOWED: Record<Status, Status[]> = {
  backlog: ['working', 'abandoned', 'zombie'],
  working: ['blocked', 'conflict', 'interrupted', 'zombie'],
  // No blocked → backlog migration: lazy never had unstarted tasks parked in blocked, and
  // a blocked task without a session (a clarify question, a failed launch) must stay in view.
  blocked: ['working', 'conflict', 'pairing', 'merging', 'abandoned', 'zombie'],
  conflict: ['working', 'blocked', 'pairing', 'abandoned', 'zombie'],
  interrupted: ['working', 'blocked', 'pairing', 'abandoned', 'zombie'],
  pairing: ['blocked', 'conflict', 'zombie'],
  merging: ['complete', 'blocked', 'conflict', 'zombie'],
  zombie: ['complete'],
  complete: ['blocked', 'backlog'],
  abandoned: ['backlog', 'blocked'],
};

t.test('every allowed and every refused transition', async (t) => {
  let allowed = 0;
  let refused = 0;
  for (const from of STATUSES) {
    for (const to of STATUSES) {
      const expected = ALLOWED[from].includes(to);
      const actor = to === 'zombie' ? 'system' : 'human';
      t.equal(
        canTransition(from, to, undefined, actor),
        expected,
        `${from} → ${to} ${expected ? 'allowed' : 'refused'}`,
      );
      expected ? allowed++ : refused++;
    }
  }
  t.equal(allowed + refused, 100);
  t.equal(EDGES.length, allowed, 'the table has exactly the expected edges');
});

t.test('zombie is reachable only by the system actor', async (t) => {
  for (const from of STATUSES.filter((s) => ALLOWED[s].includes('zombie'))) {
    for (const actor of ['human', 'builder', 'agent', 'supervisor'] as const) {
      t.notOk(canTransition(from, 'zombie', 'zombie', actor), `${actor} cannot move ${from} → zombie`);
    }
    t.ok(canTransition(from, 'zombie', 'zombie', 'system'), `system can move ${from} → zombie`);
  }
});

t.test('terminal statuses are frozen except for reopen', async (t) => {
  for (const s of ['complete', 'abandoned'] as const) {
    t.same(statusActions(s), ['reopen'], `${s} offers only reopen`);
    t.equal(categoryOf(s), 'terminal');
  }
});

t.test('categories', async (t) => {
  t.same(
    STATUSES.filter((s) => categoryOf(s) === 'active'),
    ['working', 'pairing', 'interrupted', 'merging'],
  );
  t.same(
    STATUSES.filter((s) => categoryOf(s) === 'blocked'),
    ['blocked', 'conflict'],
  );
  t.same(
    STATUSES.filter((s) => categoryOf(s) === null),
    ['backlog', 'zombie'],
  );
});

t.test('available actions are derived from the edges', async (t) => {
  t.same(statusActions('backlog'), ['start', 'close', 'comment', 'edit']);
  t.same(statusActions('working'), ['unblock', 'stop', 'comment', 'edit'], 'unblock on working queues feedback');
  t.same(statusActions('blocked'), [
    'unblock',
    'answer',
    'ask',
    'pair',
    'accept',
    'reject',
    'close',
    'comment',
    'edit',
  ]);
  t.same(statusActions('conflict'), ['unblock', 'ask', 'pair', 'accept', 'reject', 'close', 'comment', 'edit']);
  t.same(statusActions('interrupted'), ['unblock', 'resume', 'pair', 'reject', 'close', 'comment', 'edit']);
  // merging and zombie belong to an accept and the system: nothing but accept (which waits for the merge) applies.
  t.same(statusActions('merging'), ['accept']);
  t.same(statusActions('zombie'), []);
  // Every action except the status-neutral ones appears on at least one edge.
  for (const a of ACTIONS.filter((a) => a !== 'comment' && a !== 'edit')) {
    t.ok(
      EDGES.some((e) => e.on.includes(a)),
      `${a} drives some transition`,
    );
  }
});
