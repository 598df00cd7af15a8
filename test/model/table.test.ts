import t from 'tap';
import { STATUSES, type Status, categoryOf } from '../../lib/model/status.js';
import {
  canTransition,
  statusActions,
  availableActions,
  assertAllowed,
  tableSignature,
  actionGuards,
  EDGES,
  ACTIONS,
  type Action,
  type Guarded,
  type Trigger,
} from '../../lib/model/table.js';
import type { TaskDocs } from '../../lib/model/docs.js';
import type { TaskView } from '../../lib/model/fold.js';
import { REVIEW, change, decision, docs, turn, view, violation, walk } from '../helpers/docs.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../helpers/env.js';
import { shortHash } from '../../lib/core/hash.js';

/** A task with an acceptance criterion (what a queued task needs), at this changelog. */
const judged = (changelog: TaskDocs['changelog']) =>
  view({ changelog, task: { ...docs().task, acceptance: ['done'] } });

// The expected table, transcribed independently from the reference state machine
// (submitted: issue 11's edges; the reference's forge-pending merging is submitted here).
// The fleet's queue (issue 12) adds two self-loops: queue, unqueue, pause and unpause are
// status-neutral entries of backlog and interrupted tasks (lib/model/schedule.ts).
// Budgets (issue 32) add backlog → blocked and blocked → blocked: a launch refused by a budget leaves the task
// blocked with the reason (lib/agents/budget.ts).
const ALLOWED: Record<Status, Status[]> = {
  backlog: ['working', 'abandoned', 'zombie', 'backlog', 'blocked'],
  // issue 32: a follow-up or a repair returns the task to where it was (round_end), complete and abandoned included.
  working: ['blocked', 'conflict', 'interrupted', 'zombie', 'complete', 'abandoned'],
  // No blocked → backlog migration: lazy never had unstarted tasks parked in blocked, and
  // a blocked task without a session (a clarify question, a failed launch) must stay in view.
  blocked: ['working', 'conflict', 'pairing', 'merging', 'abandoned', 'zombie', 'submitted', 'blocked'],
  conflict: ['working', 'blocked', 'pairing', 'abandoned', 'zombie'],
  interrupted: ['working', 'blocked', 'pairing', 'abandoned', 'zombie', 'interrupted'],
  pairing: ['blocked', 'conflict', 'zombie'],
  submitted: ['working', 'merging', 'complete', 'blocked', 'abandoned', 'zombie'],
  merging: ['complete', 'blocked', 'conflict', 'submitted', 'zombie'],
  zombie: ['complete'],
  complete: ['blocked', 'backlog', 'working'],
  abandoned: ['backlog', 'blocked', 'working'],
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
  t.equal(allowed + refused, STATUSES.length ** 2);
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

t.test(
  'terminal statuses are frozen except for a follow-up (status-neutral), reopen, and run (which moves nothing)',
  async (t) => {
    for (const s of ['complete', 'abandoned'] as const) {
      t.same(statusActions(s), ['follow_up', 'reopen', 'run'], `${s} offers only follow-up, reopen and run`);
      t.equal(categoryOf(s), 'terminal');
    }
  },
);

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
    ['backlog', 'submitted', 'zombie'],
  );
});

t.test('available actions are derived from the edges', async (t) => {
  t.same(statusActions('backlog'), [
    'start',
    'queue',
    'unqueue',
    'pause',
    'unpause',
    'close',
    'comment',
    'edit',
    'run',
  ]);
  t.same(statusActions('working'), ['unblock', 'stop', 'comment', 'edit'], 'unblock on working queues feedback');
  t.same(statusActions('blocked'), [
    'unblock',
    'answer',
    'ask',
    'repair',
    'pair',
    'accept',
    'submit',
    'reject',
    'close',
    'comment',
    'edit',
    'run',
  ]);
  // submit on submitted is the retry (pushes again, reruns the PR command); unblock runs a new turn.
  t.same(statusActions('submitted'), ['unblock', 'accept', 'submit', 'reject', 'close', 'comment', 'edit', 'run']);
  t.same(statusActions('conflict'), ['unblock', 'ask', 'pair', 'accept', 'reject', 'close', 'comment', 'edit', 'run']);
  t.same(statusActions('interrupted'), [
    'queue',
    'unqueue',
    'pause',
    'unpause',
    'unblock',
    'resume',
    'repair',
    'pair',
    'reject',
    'close',
    'comment',
    'edit',
    'run',
  ]);
  // merging and zombie belong to an accept and the system: nothing but accept (which waits for the merge) applies.
  t.same(statusActions('merging'), ['accept']);
  t.same(statusActions('zombie'), []);
  // Every action except the status-neutral ones appears on at least one edge.
  for (const a of ACTIONS.filter((a) => a !== 'comment' && a !== 'edit' && a !== 'run')) {
    t.ok(
      EDGES.some((e) => e.on.includes(a)),
      `${a} drives some transition`,
    );
  }
});

// ---------------------------------------------------------------------------------------
// The reference state machine (shared/reference/lazy-state-machine.md, "Valid State
// Transitions"), one row per transition and trigger it names, in our trigger vocabulary.
// Each row pins that the edge exists AND that this trigger drives it.

type Row = [from: Status, to: Status, trigger: Trigger, pins: string];

const REFERENCE_ALLOWED: Row[] = [
  ['backlog', 'working', 'start', 'lazy start creates the session and launches the agent'],
  ['backlog', 'abandoned', 'close', 'lazy close cancels a task before it starts'],
  ['working', 'blocked', 'turn_complete', 'an agent turn completes'],
  ['working', 'blocked', 'turn_failed', 'an unrecoverable agent failure blocks (not auto-resumed)'],
  ['working', 'conflict', 'turn_complete', 'a turn that completes with file permission violations'],
  ['working', 'interrupted', 'turn_crashed', 'the agent dies without its response'],
  ['blocked', 'working', 'unblock', 'lazy unblock gives feedback'],
  ['blocked', 'working', 'ask', 'lazy ask runs a status-neutral turn from blocked'],
  ['blocked', 'conflict', 'rederive', 'a park re-derives the label and finds pending violations'],
  ['blocked', 'pairing', 'pair', 'lazy pair from blocked'],
  ['blocked', 'merging', 'accept', 'lazy accept begins the merge'],
  ['blocked', 'abandoned', 'reject', 'lazy reject'],
  ['blocked', 'abandoned', 'close', 'lazy close'],
  ['conflict', 'working', 'unblock', 'lazy unblock to fix violations'],
  ['conflict', 'working', 'ask', 'lazy ask runs from conflict too'],
  ['conflict', 'blocked', 'rederive', 'a park after every violation was decided'],
  ['conflict', 'pairing', 'pair', 'lazy pair to work on violations'],
  ['conflict', 'abandoned', 'reject', 'lazy reject from conflict'],
  ['conflict', 'abandoned', 'close', 'lazy close from conflict'],
  ['interrupted', 'working', 'auto_resume', 'auto-resume while the circuit breaker allows'],
  ['interrupted', 'working', 'resume', 'lazy resume'],
  ['interrupted', 'working', 'unblock', 'lazy unblock from interrupted'],
  ['interrupted', 'working', 'stale_response', 'the stale-completed-response sweep routes through working'],
  ['interrupted', 'pairing', 'pair', 'lazy pair investigates a crash'],
  ['interrupted', 'abandoned', 'reject', 'lazy reject from interrupted'],
  ['interrupted', 'abandoned', 'close', 'lazy close from interrupted'],
  ['pairing', 'blocked', 'pair_end', 'the pairing session ends'],
  ['pairing', 'blocked', 'stale_pairing', 'the stale pairing sweep'],
  ['pairing', 'conflict', 'pair_end', 'pairing ends while a decision is still owed'],
  ['pairing', 'conflict', 'stale_pairing', 'the stale pairing sweep while a decision is owed'],
  ['merging', 'complete', 'accept', 'lazy accept: the merge succeeds'],
  ['merging', 'complete', 'merge_done', 'the reconciler finds the merge completed'],
  ['merging', 'blocked', 'merge_abort', 'an aborted merge of a task that was blocked'],
  ['merging', 'conflict', 'merge_abort', 'an aborted merge restores conflict, its true prior status'],
  ['merging', 'submitted', 'merge_abort', 'an aborted merge of a submitted task restores submitted'],
  // issue 11: the forge hand-off (the reference's forge-pending merge, as its own status).
  ['blocked', 'submitted', 'submit', 'lazy submit hands reviewed work to a forge'],
  ['submitted', 'working', 'unblock', 'unblock on a submitted task runs a new turn'],
  ['submitted', 'merging', 'accept', 'lazy accept merges a submitted task here'],
  ['submitted', 'complete', 'merge_done', 'a merge detected upstream completes the task'],
  ['submitted', 'blocked', 'pr_closed', 'the remote branch was deleted without a merge'],
  ['submitted', 'abandoned', 'reject', 'lazy reject of a submitted task'],
  ['submitted', 'abandoned', 'close', 'lazy close of a submitted task'],
  ['zombie', 'complete', 'merge_done', 'the merged-branch sweep completes a zombie'],
  ['complete', 'blocked', 'reopen', 'lazy reopen of an accepted task'],
  ['complete', 'backlog', 'reopen', 'lazy reopen of an accepted task with no session'],
  ['abandoned', 'backlog', 'reopen', 'lazy reopen of a task with no agent work'],
  ['abandoned', 'blocked', 'reopen', 'lazy reopen of a task with agent work'],
  // issue 12: vincent's pause and priority (vincent-task-lifecycle.md, "Human actions"), as status-neutral entries.
  ['backlog', 'backlog', 'queue', 'lazy queue: the task is ready for any machine (vincent: queued)'],
  ['backlog', 'backlog', 'queue', 'vincent set priority on a queued task: lazy queue --priority N again'],
  ['backlog', 'backlog', 'pause', 'vincent pause from queued'],
  ['backlog', 'backlog', 'unpause', 'vincent resume: paused → queued'],
  ['backlog', 'backlog', 'unqueue', 'lazy unqueue takes a task back from the fleet'],
  ['interrupted', 'interrupted', 'queue', 'a crashed task sent back to the fleet'],
  ['interrupted', 'interrupted', 'pause', 'vincent pause from running, once the turn has ended (crashed)'],
  ['interrupted', 'interrupted', 'unpause', 'vincent resume of a held task'],
  ['interrupted', 'interrupted', 'unqueue', 'a crashed fleet task taken back by a person'],
  ['working', 'interrupted', 'usage_limit', 'vincent: a usage limit is an interruption, not a failure; no retry spent'],
];

// The NOTEs of the reference: transitions it forbids outright.
const REFERENCE_REFUSED: [from: Status, to: Status, pins: string][] = [
  ['working', 'pairing', 'working cannot pair: the agent is running'],
  ['blocked', 'complete', 'blocked must go through merging to complete'],
  ['interrupted', 'merging', 'interrupted cannot merge: review first'],
  ['interrupted', 'complete', 'interrupted cannot complete: review first'],
  ['merging', 'abandoned', 'a merge succeeds or fails back; it is never abandoned'],
  ['complete', 'zombie', 'terminal statuses cannot become zombie'],
  ['abandoned', 'zombie', 'terminal statuses cannot become zombie'],
  ['zombie', 'blocked', 'zombie only completes'],
];

t.test('reference: every transition it lists, on the trigger it names', async (t) => {
  for (const [from, to, trigger, pins] of REFERENCE_ALLOWED) {
    t.ok(canTransition(from, to, trigger, 'system'), `${from} → ${to} on ${trigger}: ${pins}`);
  }
});

t.test('reference: the transitions its notes forbid', async (t) => {
  for (const [from, to, pins] of REFERENCE_REFUSED) {
    t.notOk(canTransition(from, to), `${from} → ${to} refused: ${pins}`);
  }
  // Only a follow-up's own end returns a working task to abandoned: nothing a person asks abandons a running agent.
  for (const trigger of [...ACTIONS, 'turn_complete', 'turn_failed', 'turn_crashed'] as Trigger[])
    t.notOk(canTransition('working', 'abandoned', trigger), `working cannot be abandoned by ${trigger}`);
  t.ok(canTransition('working', 'abandoned', 'round_end'), 'a follow-up of an abandoned task ends there');
});

t.test('reference: any non-terminal status may become zombie, by the system only', async (t) => {
  for (const from of STATUSES) {
    const terminal = from === 'complete' || from === 'abandoned';
    t.equal(
      canTransition(from, 'zombie', 'zombie', 'system'),
      !terminal && from !== 'zombie',
      `${from} → zombie ${terminal ? 'refused (terminal)' : 'allowed for system'}`,
    );
    t.notOk(canTransition(from, 'zombie', 'zombie', 'human'), `${from} → zombie refused for a human`);
  }
});

// Where our table deliberately differs from the reference, the row is OUR behaviour and
// its comment names the difference.
const DIFFERENCES: [from: Status, to: Status, trigger: Trigger | undefined, expected: boolean, pins: string][] = [
  // Difference: the reference migrates a blocked task with no session to backlog; lazy never parks unstarted work in blocked.
  ['blocked', 'backlog', undefined, false, 'no blocked → backlog migration'],
  // Difference: the reference's pre-accept turn restores conflict from working on accept; lazy has no pre-accept turn.
  ['working', 'conflict', 'accept', false, 'accept never moves a working task'],
  // Difference: accept from conflict records a decision on every pending file first (→ blocked), then merges.
  ['conflict', 'blocked', 'accept', true, 'accept leaves conflict through its decisions'],
  // Difference (lazy addition): lazy stop ends a turn, parking it or returning an ask to where it was.
  ['working', 'blocked', 'stop', true, 'stop parks a working task as blocked'],
  ['working', 'conflict', 'stop', true, 'stop parks a working task as conflict'],
  ['working', 'interrupted', 'stop', true, 'stop interrupts a working turn'],
  // Difference (lazy addition): a start without an acceptance criterion parks as blocked to ask for one.
  ['working', 'blocked', 'clarify', true, 'clarify parks a task that needs an acceptance criterion'],
  // Difference (lazy addition): answer is its own action, for a pending decision.
  ['blocked', 'working', 'answer', true, 'answer resumes a blocked task'],
  // Difference (lazy addition): an auto-resume that cannot launch blocks with its reason.
  ['interrupted', 'blocked', 'turn_failed', true, 'a failed relaunch blocks an interrupted task'],
  // Difference: a merge fails back only by merge_abort, never by accept itself.
  ['merging', 'blocked', 'accept', false, 'an accept never fails a merge back by itself (merge_abort does)'],
  // Difference: the reference's forge-pending merging is submitted here; a PR closed upstream leaves it.
  ['submitted', 'blocked', 'pr_closed', true, 'a pull request closed without merge returns the task to blocked'],
  ['merging', 'blocked', 'pr_closed', false, 'merging is only ever a local accept, never a forge wait'],
  // Difference (issue 12): vincent pauses a running task at its next step boundary; lazy holds only a queued
  // or interrupted task (a running turn is ended by lazy stop, and its crash can then be held).
  ['working', 'working', 'pause', false, 'a running turn is not paused: lazy stop ends it'],
  // Difference: vincent's paused is a status (resume → queued); lazy's queued and paused are flags on a backlog
  // or interrupted task, so pausing or releasing one never changes its status.
  ['backlog', 'backlog', 'pause', true, 'pause is a status-neutral entry, not a move into paused'],
  ['backlog', 'backlog', 'unpause', true, 'unpause is a status-neutral entry, not a move into queued'],
  // Difference: vincent sets priority only on a queued or paused task (a PATCH); lazy's queue --priority both
  // queues and sets it, from a backlog or interrupted task, queued or not.
  ['interrupted', 'interrupted', 'queue', true, 'queue --priority from an interrupted task'],
  // Difference (lazy addition): pause holds an interrupted task from auto-resume (vincent has no interrupted status).
  ['interrupted', 'interrupted', 'pause', true, 'pause holds a crash from auto-resume'],
  // Difference: no status leaves blocked, conflict, submitted or pairing for the queue: a person's review comes first.
  ['blocked', 'blocked', 'queue', false, 'a blocked task waits for a person, never for the fleet'],
  ['submitted', 'submitted', 'pause', false, 'a submitted task waits for its forge, not the queue'],
];

t.test('our deliberate differences from the reference table', async (t) => {
  for (const [from, to, trigger, expected, pins] of DIFFERENCES) {
    t.equal(
      canTransition(from, to, trigger, 'human'),
      expected,
      `${from} → ${to}${trigger ? ` on ${trigger}` : ''}: ${pins}`,
    );
  }
  t.ok((STATUSES as readonly string[]).includes('submitted'), 'submitted is a status of its own (issue 11)');
  t.notOk((STATUSES as readonly string[]).includes('paused'), "vincent's paused is a flag here (issue 12)");
  t.notOk((STATUSES as readonly string[]).includes('queued'), "vincent's queued is a flag here (issue 12)");
});

t.test('a trigger drives only the edges that name it', async (t) => {
  const rows: [Status, Status, Trigger, string][] = [
    ['backlog', 'working', 'unblock', 'unblock does not start a backlog task'],
    ['blocked', 'working', 'resume', 'resume is for interrupted tasks only'],
    ['interrupted', 'working', 'answer', 'answer is for a blocked decision only'],
    ['blocked', 'merging', 'merge_done', 'only accept begins a merge'],
    ['pairing', 'blocked', 'stop', 'stop does not end a pairing session'],
    ['working', 'blocked', 'turn_crashed', 'a crash interrupts, it never blocks'],
    ['working', 'interrupted', 'turn_failed', 'a classified failure blocks, it never interrupts'],
    ['complete', 'blocked', 'unblock', 'only reopen leaves complete'],
    ['zombie', 'complete', 'accept', 'only the merged-branch sweep completes a zombie'],
    ['backlog', 'working', 'queue', 'queue never starts a task: a worker claims it with start'],
    ['interrupted', 'working', 'unpause', 'unpause never resumes a turn by itself: a resume does'],
    ['backlog', 'backlog', 'start', 'start always moves'],
    ['interrupted', 'interrupted', 'resume', 'resume always moves'],
    ['working', 'interrupted', 'pause', 'pause never interrupts a running turn'],
  ];
  for (const [from, to, trigger, pins] of rows) {
    t.ok(canTransition(from, to), `${from} → ${to} exists on some trigger`);
    t.notOk(canTransition(from, to, trigger, 'system'), `${from} → ${to} refused on ${trigger}: ${pins}`);
  }
});

// The reference's "Human Actions": the statuses each command acts from.
const ACTION_FROM: [Action, Status[], string][] = [
  ['start', ['backlog'], 'lazy start: backlog → working'],
  // vincent's set priority (queued, paused) and pause (queued, running), in lazy's vocabulary: the queue is
  // a flag on a backlog or interrupted task, not a status (see the differences below).
  ['queue', ['backlog', 'interrupted'], 'lazy queue: a backlog or interrupted task, status-neutral'],
  ['unqueue', ['backlog', 'interrupted'], 'lazy unqueue: a queued task (guard queued), status-neutral'],
  ['pause', ['backlog', 'interrupted'], 'lazy pause: a queued or interrupted task (guard not_paused)'],
  ['unpause', ['backlog', 'interrupted'], "vincent's resume of a paused task: lazy unpause (guard paused)"],
  // Difference (lazy addition): unblock on working queues feedback for the next turn.
  [
    'unblock',
    ['working', 'blocked', 'conflict', 'submitted', 'interrupted'],
    'lazy unblock: blocked|conflict|interrupted → working',
  ],
  ['answer', ['blocked'], 'answer: a blocked task with a pending decision'],
  ['resume', ['interrupted'], 'lazy resume: interrupted → working'],
  ['ask', ['blocked', 'conflict'], 'lazy ask: blocked|conflict, status-neutral'],
  // vincent's follow_up (done, aborted) and repair (blocked; here interrupted too), each a status-neutral round.
  ['follow_up', ['complete', 'abandoned'], 'lazy follow-up: complete|abandoned → working → back'],
  ['repair', ['blocked', 'interrupted'], 'lazy repair: blocked|interrupted → working → back'],
  ['stop', ['working'], 'lazy stop: a running turn'],
  ['pair', ['blocked', 'conflict', 'interrupted'], 'lazy pair: blocked|conflict|interrupted → pairing'],
  // Difference: accept from conflict (decisions first); a stranded merge is recovered by accept-recovery, not by reject/close/unblock.
  ['accept', ['blocked', 'conflict', 'submitted', 'merging'], 'lazy accept: blocked|merging → merging → complete'],
  ['submit', ['blocked', 'submitted'], 'lazy submit: blocked → submitted; again on submitted'],
  ['reject', ['blocked', 'conflict', 'submitted', 'interrupted'], 'lazy reject: → abandoned'],
  ['close', ['backlog', 'blocked', 'conflict', 'submitted', 'interrupted'], 'lazy close: → abandoned'],
  ['reopen', ['complete', 'abandoned'], 'lazy reopen: complete|abandoned → blocked|backlog'],
  [
    'comment',
    ['backlog', 'working', 'blocked', 'conflict', 'submitted', 'pairing', 'interrupted'],
    'comment changes no status',
  ],
  [
    'edit',
    ['backlog', 'working', 'blocked', 'conflict', 'submitted', 'pairing', 'interrupted'],
    'edit changes no status',
  ],
  // Difference (issue 32): a person's command on the record, never while a turn, an accept or the system holds it.
  [
    'run',
    ['backlog', 'blocked', 'conflict', 'submitted', 'pairing', 'interrupted', 'complete', 'abandoned'],
    'lazy run changes no status (once a turn made the branch: guard branch_made)',
  ],
];

t.test('reference: the statuses each human action applies from', async (t) => {
  t.same(
    ACTION_FROM.map(([a]) => a),
    [...ACTIONS],
    'every action has a row',
  );
  for (const [action, from, pins] of ACTION_FROM) {
    t.same(
      STATUSES.filter((s) => statusActions(s).includes(action)),
      from,
      `${action} from ${from.join('|')}: ${pins}`,
    );
  }
});

// firstmate-lifecycle.md and vincent-task-lifecycle.md name other vocabularies; where
// they state a rule lazy keeps or changes, the row is ours.
t.test('reference (firstmate, vincent): lifecycle rules in our vocabulary', async (t) => {
  // Difference: firstmate's terminal states cannot be reopened; lazy reopens both terminals.
  t.ok(canTransition('complete', 'blocked', 'reopen'), 'a completed task can be reopened');
  t.ok(canTransition('abandoned', 'backlog', 'reopen'), 'a cancelled task can be reopened');
  // Difference: firstmate's review_ready → completed is direct; lazy's accept always goes through merging.
  t.notOk(canTransition('blocked', 'complete'), 'accept goes through merging');
  // Difference: firstmate requeues a running task whose worker is gone; lazy interrupts it instead.
  t.notOk(canTransition('working', 'backlog'), 'no running → queued');
  t.ok(canTransition('working', 'interrupted', 'turn_crashed'), 'a lost worker interrupts the task');
  // firstmate: request changes (review_ready → running) is lazy unblock.
  t.ok(canTransition('blocked', 'working', 'unblock'), 'request changes runs the agent again');
  // firstmate: answering a decision moves the task back to running.
  t.ok(canTransition('blocked', 'working', 'answer'), 'an answer runs the agent again');
  // firstmate: cancel from any non-terminal resting state; vincent: blocked is a resting state, not a failure.
  for (const s of ['backlog', 'blocked', 'conflict', 'interrupted'] as const)
    t.ok(canTransition(s, 'abandoned', 'close'), `${s} can be cancelled`);
  // firstmate: completed has no way out but (in lazy) reopen; vincent: an invalid action is refused (409, our exit 4).
  t.same(
    statusActions('complete'),
    ['follow_up', 'reopen', 'run'],
    "vincent: done offers follow_up (and lazy's reopen, and run, which moves nothing)",
  );
});

// ---------------------------------------------------------------------------------------
// Guards: conditions an action needs beyond the status (GUARDS), read by availableActions
// and assertAllowed alike.

/** The task's own document with a criterion: nothing runs an agent, pairs or accepts without one. */
const CRITERION = { task: { ...docs().task, acceptance: ['done'] } };

const blocked = (more: Partial<TaskDocs> = {}): TaskView =>
  view({ changelog: walk(['working', 'start'], ['blocked', 'turn_complete']), ...CRITERION, ...more });

t.test('guard decision_pending: answer needs a pending decision', async (t) => {
  const rows: [string, Guarded, boolean][] = [
    ['a clarify question is a decision', view({ changelog: walk(['working', 'start'], ['blocked', 'clarify']) }), true],
    ['an agent question is a decision', blocked({ turns: [turn(2, 'agent', 'question')] }), true],
    ['an agent result is a review, not a decision', blocked({ turns: [turn(2, 'agent', 'result')] }), false],
    [
      'an answered question is no longer pending',
      blocked({ turns: [turn(2, 'agent', 'question'), turn(3, 'human', 'answer')] }),
      false,
    ],
    [
      'a failed turn is a failure, not a decision',
      view({ changelog: walk(['working', 'start'], ['blocked', 'turn_failed']), ...CRITERION }),
      false,
    ],
  ];
  for (const [pins, v, expected] of rows) {
    t.equal(availableActions(v).includes('answer'), expected, `answer ${expected ? 'offered' : 'withheld'}: ${pins}`);
    if (expected) t.doesNotThrow(() => assertAllowed('answer', v), pins);
    else
      t.throws(
        () => assertAllowed('answer', v),
        { code: 'action_not_allowed', exitCode: 4, details: { guard: 'decision_pending' } },
        pins,
      );
  }
});

t.test('guard no_pending_violations: resume refuses while protected files await a decision', async (t) => {
  const crashed = walk(['working', 'start'], ['interrupted', 'turn_crashed']);
  const clean = view({ changelog: crashed, ...CRITERION });
  t.ok(availableActions(clean).includes('resume'), 'a crash with nothing to decide resumes');
  const pending = view({
    changelog: crashed,
    violations: [violation(3, 'b.lock'), violation(4, 'a.lock')],
    ...CRITERION,
  });
  t.notOk(availableActions(pending).includes('resume'), 'resume withheld while a.lock and b.lock are pending');
  t.ok(availableActions(pending).includes('unblock'), 'unblock, which carries decisions, stays offered');
  t.throws(() => assertAllowed('resume', pending), {
    code: 'action_not_allowed',
    message: /protected files \(a\.lock, b\.lock\).*--approve-file\/--revert-file/,
    details: { guard: 'no_pending_violations', pending_files: ['a.lock', 'b.lock'], status: 'interrupted' },
  });
  const decided = view({
    changelog: crashed,
    violations: [violation(3, 'a.lock')],
    decisions: [decision(5, 'a.lock', 'approve')],
    ...CRITERION,
  });
  t.ok(availableActions(decided).includes('resume'), 'a decided file no longer holds resume back');
});

t.test('guard runnable: queue refuses a task no worker could run', async (t) => {
  const crashed = walk(['working', 'start'], ['interrupted', 'turn_crashed']);
  t.ok(availableActions(judged(crashed)).includes('queue'), 'a plain crash may go back to the fleet');
  const pending = view({ changelog: crashed, violations: [violation(3, 'a.lock')], ...CRITERION });
  t.notOk(availableActions(pending).includes('queue'), 'withheld while a protected file awaits a decision');
  t.throws(() => assertAllowed('queue', pending), {
    message: /protected files to decide \(a\.lock\).*--approve-file/,
    details: { guard: 'runnable', status: 'interrupted' },
  });
  const held = walk(['working', 'start']);
  held.push({
    ...walk(['working', 'start'], ['interrupted', 'turn_crashed'])[2]!,
    details: { held: 'the run was lost' },
  });
  const heldView = view({ changelog: held, ...CRITERION });
  t.equal(heldView.status, 'interrupted');
  t.throws(() => assertAllowed('queue', heldView), { message: /the run was lost/, details: { guard: 'runnable' } });
  t.ok(availableActions(judged(walk())).includes('queue'), 'a backlog task with a criterion is queueable');
  t.throws(() => assertAllowed('queue', view({ changelog: walk() })), {
    message: /only with an acceptance criterion to judge its turn by; add one with lazy edit --accept/,
    details: { guard: 'runnable', status: 'backlog' },
  });
});

t.test('guard reviewed: accept merges only work a person has had in front of them', async (t) => {
  const accepted = walk(
    ['working', 'start'],
    ['blocked', 'turn_complete'],
    ['merging', 'accept'],
    ['complete', 'accept'],
    ['blocked', 'reopen'],
  ); // clocks 1..6
  const rows: [string, Partial<TaskDocs>, boolean][] = [
    ['a work turn that left a review', { turns: [turn(3, 'agent', 'result', { details: REVIEW })] }, true],
    ['no work turn at all', {}, false],
    ['a work turn without a review (a failed turn)', { turns: [turn(3, 'agent', 'error')] }, false],
    [
      'a later failed turn hides an earlier review',
      { turns: [turn(3, 'agent', 'result', { details: REVIEW }), turn(5, 'agent', 'error')] },
      false,
    ],
    [
      'an ask after reviewed work is not work',
      {
        turns: [
          turn(3, 'agent', 'result', { details: REVIEW }),
          turn(5, 'agent', 'result', { details: { ...REVIEW, mode: 'ask' } }),
        ],
      },
      true,
    ],
    [
      'an ask never reviews work by itself',
      { turns: [turn(3, 'agent', 'result', { details: { ...REVIEW, mode: 'ask' } })] },
      false,
    ],
    ['a pairing session that left a review', { turns: [turn(3, 'human', 'pair', { details: REVIEW })] }, true],
    [
      'a human turn after the review is not work',
      { turns: [turn(3, 'agent', 'result', { details: REVIEW }), turn(5, 'human', 'feedback')] },
      true,
    ],
    [
      'a review head that is not a full commit id',
      { turns: [turn(3, 'agent', 'result', { details: { review: { head: 'abc123' } } })] },
      false,
    ],
    [
      'a review from before the last accept',
      { changelog: accepted, turns: [turn(3, 'agent', 'result', { details: REVIEW })] },
      false,
    ],
    [
      'a review after the reopen',
      {
        changelog: accepted,
        turns: [turn(3, 'agent', 'result', { details: REVIEW }), turn(7, 'agent', 'result', { details: REVIEW })],
      },
      true,
    ],
    [
      'an accept a merge set aside is no accept',
      {
        changelog: [
          ...walk(['working', 'start'], ['blocked', 'turn_complete']),
          change(4, 'merging', 'complete', 'accept'),
        ],
        turns: [turn(3, 'agent', 'result', { details: REVIEW })],
      },
      true,
    ],
  ];
  for (const [pins, more, expected] of rows) {
    const v: Guarded = { ...blocked(more), status: 'blocked' };
    t.equal(availableActions(v).includes('accept'), expected, `accept ${expected ? 'offered' : 'withheld'}: ${pins}`);
    if (!expected)
      t.throws(() => assertAllowed('accept', v), { details: { guard: 'reviewed' }, message: /reviewed work/ }, pins);
  }
});

// issue 28: a pending decision is answered or the task closed; nothing runs, pairs or accepts without a criterion.
t.test('guard no_pending_decision: accept and submit wait for the answer', async (t) => {
  const asked = blocked({ turns: [turn(2, 'agent', 'question', { details: REVIEW })] });
  for (const a of ['accept', 'submit'] as const) {
    t.notOk(availableActions(asked).includes(a), `${a} withheld while the agent's question waits`);
    t.throws(() => assertAllowed(a, asked), {
      code: 'action_not_allowed',
      exitCode: 4,
      details: { guard: 'no_pending_decision', decision: asked.attention!.reason },
    });
  }
  t.ok(availableActions(asked).includes('unblock'), 'unblock stays: its feedback is the answer');
});

t.test('guard criterion: nothing runs an agent, pairs or accepts a task without a criterion', async (t) => {
  const clarify = view({ changelog: walk(['working', 'start'], ['blocked', 'clarify']) });
  t.same(
    availableActions(clarify),
    // run has no criterion guard: it runs a person's command, never an agent (without a branch, show drops it).
    ['unblock', 'answer', 'reject', 'close', 'comment', 'edit', 'run'],
    'the answer gives one',
  );
  // A pairing session's review does not stand in for the criterion.
  const paired = view({
    changelog: walk(['working', 'start'], ['blocked', 'clarify'], ['pairing', 'pair'], ['blocked', 'pair_end']),
    turns: [turn(5, 'human', 'pair', { details: REVIEW })],
  });
  for (const a of ['accept', 'submit', 'pair', 'ask', 'unblock'] as const) {
    t.notOk(availableActions(paired).includes(a), `${a} withheld`);
    t.throws(() => assertAllowed(a, paired), { details: { guard: 'criterion' }, message: /no acceptance criterion/ });
  }
  const crashed = view({ changelog: walk(['working', 'start'], ['interrupted', 'turn_crashed']) });
  t.notOk(availableActions(crashed).includes('resume'), 'no resume without one');
  t.notOk(availableActions(crashed).includes('queue'), 'and no worker resumes it');
});

t.test('assertAllowed: the same test available_actions makes, as an exit-4 error', async (t) => {
  const v = judged(walk());
  t.doesNotThrow(() => assertAllowed('start', v), 'start from backlog');
  t.throws(() => assertAllowed('accept', v), {
    code: 'action_not_allowed',
    exitCode: 4,
    // issue 12: an unqueued backlog task with a criterion also offers queue (unqueue, pause and unpause are guarded out).
    message: 'cannot accept a task that is backlog; available actions: start, queue, close, comment, edit',
    details: {
      action: 'accept',
      status: 'backlog',
      available_actions: ['start', 'queue', 'close', 'comment', 'edit'],
    },
  });
  t.throws(() => assertAllowed('accept', v, 'told why'), { message: 'told why' }, 'a caller may name the reason');
  const zombie: Guarded = { ...v, status: 'zombie' };
  t.throws(() => assertAllowed('comment', zombie), { message: /available actions: none/ }, 'zombie allows nothing');
  t.throws(
    () => assertAllowed('edit', { ...v, status: 'merging' }),
    { code: 'action_not_allowed' },
    'an accept owns merging',
  );
});

t.test('availableActions: unguarded statuses share the memoized list; guarded ones filter it', async (t) => {
  // issue 12: backlog has guarded actions now (unqueue, pause, unpause); issue 28: working's unblock needs a criterion.
  const v = view({ changelog: walk(['working', 'start'], ['blocked', 'turn_complete'], ['pairing', 'pair']) });
  t.same(availableActions(v), statusActions('pairing'), 'pairing: run is guarded (branch_made) and holds here');
  t.not(availableActions(view()), statusActions('backlog'), 'backlog has guards now: a filtered copy');
  const b = blocked();
  t.not(availableActions(b), statusActions('blocked'), 'blocked has guards: a filtered copy');
  t.same(
    availableActions(b),
    ['unblock', 'ask', 'repair', 'pair', 'reject', 'close', 'comment', 'edit', 'run'],
    'no answer, no accept',
  );
  t.same(b.available_actions, availableActions(b), 'the fold carries exactly available_actions');
});

t.test('tableSignature: a stable key of the table and its guards', async (t) => {
  t.match(tableSignature(), /^[0-9a-z]+$/);
  t.equal(tableSignature(), tableSignature(), 'deterministic');
  const more = [...EDGES, { from: 'backlog' as const, to: 'complete' as const, on: ['accept' as const] }];
  t.not(tableSignature(more), tableSignature(), 'an edge added: another signature');
  t.not(tableSignature(EDGES.slice(1)), tableSignature(), 'an edge gone: another signature');
  // test/cli/completion.test.ts: the CLI's and the MCP server's bundles key the listing index as these sources do.
});

/**
 * The guards' code as it stands, pinned with the revision of every guard: the signature (and so the listing index,
 * which stores available_actions) keys on revisions, not on code. When this fails because the code changed: if what a
 * guard decides changed, bump its rev in lib/model/table.ts (an index built under the old logic is then rebuilt),
 * and pin both; if no decision changed (a reworded reason, a refactor), pin the new code alone.
 */
const GUARDS_PINNED = {
  revs: 'branch_made@1 criterion@2 decision_pending@1 no_pending_decision@1 no_pending_violations@1 not_paused@2 paused@2 queued@2 reviewed@2 runnable@2',
  code: 'lgi0wf',
};

t.test('a guard whose decision changes gets a new rev: its code is pinned with the revs', async (t) => {
  const revs = [...new Set(ACTIONS.flatMap((a) => actionGuards(a).map((g) => `${g.name}@${g.rev}`)))].sort().join(' ');
  const source = (file: string) => readFileSync(join(ROOT, 'lib', 'model', file), 'utf8');
  const between = (text: string, from: string, to: string) => {
    const at = text.indexOf(from);
    t.ok(at >= 0 && text.indexOf(to, at) > at, `${from} … ${to} found`);
    return text.slice(at, text.indexOf(to, at));
  };
  // The guards and what they decide by: table.ts's guards and the functions they call elsewhere.
  const code = [
    between(source('table.ts'), 'const GUARDS:', 'const actionsByStatus'),
    between(source('attention.ts'), 'export function heldCrash', '\n}\n'),
    between(source('review.ts'), 'export function isReviewTurn', '\n}\n'),
    between(source('details.ts'), 'export function reviewOf', '\n}\n'),
    between(source('views.ts'), 'export function lastChange', '\n}\n'),
    between(source('rounds.ts'), 'export const isRoundMove', '\n}\n'),
  ].join('\n');
  t.same({ revs, code: shortHash(withoutComments(code)) }, GUARDS_PINNED, 'the guards as pinned');
});

/** Code with its comments and blank space gone (string literals kept: a guard may decide by one). */
const withoutComments = (src: string) =>
  src
    .replace(
      /('(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*"|`(?:\\.|[^`\\])*`)|\/\*[\s\S]*?\*\/|\/\/.*$/gm,
      (_, str) => str ?? '',
    )
    .replace(/\s+/g, ' ');

// issue 12: the queue's guards. A history is written with its neutral entries (from === to).
t.test('guards queued, not_paused, paused: unqueue, pause and unpause follow the schedule', async (t) => {
  const base = walk();
  const crashed = walk(['working', 'start'], ['interrupted', 'turn_crashed']);
  const n = (c: number, s: Status, trigger: Trigger, more = {}) => change(c, s, s, trigger, more);
  const rows: [string, TaskDocs['changelog'], Action[], Action[]][] = [
    ['a backlog task', base, ['queue'], ['unqueue', 'pause', 'unpause']],
    ['a queued task', [...base, n(2, 'backlog', 'queue')], ['queue', 'unqueue', 'pause'], ['unpause']],
    [
      'a queued, paused task',
      [...base, n(2, 'backlog', 'queue'), n(3, 'backlog', 'pause')],
      ['queue', 'unqueue', 'unpause'],
      ['pause'],
    ],
    [
      'an unqueued task (paused stays until unpaused)',
      [...base, n(2, 'backlog', 'queue'), n(3, 'backlog', 'pause'), n(4, 'backlog', 'unqueue')],
      ['queue', 'unpause'],
      ['unqueue', 'pause'],
    ],
    ['an interrupted task', crashed, ['queue', 'pause'], ['unqueue', 'unpause']],
    ['a paused interrupted task', [...crashed, n(4, 'interrupted', 'pause')], ['queue', 'unpause'], ['pause']],
  ];
  for (const [pins, changelog, offered, withheld] of rows) {
    const v = judged(changelog);
    for (const a of offered) {
      t.ok(availableActions(v).includes(a), `${pins}: ${a} offered`);
      t.doesNotThrow(() => assertAllowed(a, v), `${pins}: ${a} allowed`);
    }
    for (const a of withheld) {
      t.notOk(availableActions(v).includes(a), `${pins}: ${a} withheld`);
      t.throws(
        () => assertAllowed(a, v),
        {
          code: 'action_not_allowed',
          exitCode: 4,
          details: { status: v.status, guard: /^(queued|not_paused|paused)$/ },
        },
        `${pins}: ${a} refused by its guard`,
      );
    }
  }
  const paused = view({ changelog: [...base, n(2, 'backlog', 'queue'), n(3, 'backlog', 'pause')] });
  t.throws(() => assertAllowed('pause', paused), { message: /it is already paused/ }, 'pause says it is paused');
  t.throws(() => assertAllowed('pause', view()), { message: /only a queued or interrupted task can be paused/ });
  t.throws(() => assertAllowed('unqueue', view()), { message: /it is not queued/ });
  t.throws(() => assertAllowed('unpause', view()), { message: /it is not paused/ });
});
