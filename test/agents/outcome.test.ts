import t from 'tap';
import { applyOutcome, outcomeText } from '../../lib/agents/supervisor/outcome/index.js';
import type { Outcome, OutcomeKind } from '../../lib/agents/supervisor/outcome/types.js';
import type { RunRecord } from '../../lib/agents/runs.js';
import { Draft } from '../../lib/store/draft.js';
import { foldTask } from '../../lib/model/fold.js';
import type { StatusEntry, TaskDocs } from '../../lib/model/docs.js';
import type { Status } from '../../lib/model/status.js';
import type { Trigger } from '../../lib/model/table.js';
import { docs, turn, violation, walk } from '../helpers/docs.js';

// What a run's outcome does to its task, decided on a draft held in memory. Reference
// (lazy-state-machine.md, "What stop means"): a classified failure blocks the task, never
// interrupts it, so nothing relaunches into a dead condition; an unclassified crash
// interrupts it for bounded auto-resume. Feedback is consumed only by a turn that
// completes normally, so a crash re-delivers it.

const RUN = 'run00001';
const ctx = {
  actor: 'system' as const,
  person: { name: 'L', email: 'l@x' },
  host: 'here',
  clone: 'clone0001',
  now: '2026-01-02T00:00:00.000Z',
};

function record(more: Partial<RunRecord> = {}): RunRecord {
  return {
    id: RUN,
    task: 'task0001',
    kind: 'work',
    turn: 1,
    session: 'sess0001',
    agent: { name: 'fake' },
    agent_session_id: null,
    worktree: '/nowhere',
    base: 'main',
    merge_upstream: null,
    consumes: ['t0000002'],
    restore: null,
    created_at: ctx.now,
    host: 'here',
    launcher: { host: 'here', boot_id: null, pid: 1, start_ticks: null },
    supervisor: null,
    ...more,
  } as RunRecord;
}

function outcome(kind: OutcomeKind, more: Partial<Outcome> = {}): Outcome {
  return { run: RUN, task: 'task0001', kind, ended_at: ctx.now, attempts: 1, summary: `${kind} summary`, ...more };
}

/** A task whose latest move into working launched RUN, with the prompt it delivers pending. */
function working(steps: [Status, Trigger][] = [['working', 'start']], more: Partial<TaskDocs> = {}): TaskDocs {
  const changelog = walk(...steps);
  const into = [...changelog].reverse().find((e) => e.to === 'working');
  if (into) into.run = RUN;
  return docs({ changelog, turns: [turn(2, 'human', 'prompt', { feedback: 'pending', run: RUN })], ...more });
}

function apply(d0: TaskDocs, o: Outcome, run = record()) {
  const d = new Draft(d0, foldTask(d0), ctx, 'turn');
  applyOutcome(d, run, o);
  return { d, after: d.preview() };
}
const moves = (changes: StatusEntry[]) => changes.map((c) => `${c.from}→${c.to} on ${c.trigger}`);

t.test('applyOutcome: one row per outcome', async (t) => {
  const interrupt = (more: Partial<NonNullable<Outcome['interrupt']>> = {}) => ({
    reason: 'exit 137',
    exit_code: 137,
    signal: null,
    logs: [],
    at: ctx.now,
    ...more,
  });
  const rows: [
    pins: string,
    task: TaskDocs,
    o: Outcome,
    run: RunRecord,
    moves: string[],
    turnKind: string,
    pending: string[],
  ][] = [
    [
      'completed: parks as blocked, consumes the feedback',
      working(),
      outcome('completed'),
      record(),
      ['working→blocked on turn_complete'],
      'result',
      [],
    ],
    [
      'completed with protected files touched: parks as conflict',
      working(),
      outcome('completed', { violations: [{ file: 'a.lock', commit: 'c'.repeat(40), base: 'b'.repeat(40) }] }),
      record(),
      ['working→conflict on turn_complete'],
      'result',
      [],
    ],
    [
      'completed while an earlier violation is still pending: conflict (a clean turn never clears it)',
      working([['working', 'start']], { violations: [violation(2, 'old.lock')] }),
      outcome('completed'),
      record(),
      ['working→conflict on turn_complete'],
      'result',
      [],
    ],
    [
      'decision_required: parks, with the question',
      working(),
      outcome('decision_required', { question: 'Which?' }),
      record(),
      ['working→blocked on turn_complete'],
      'question',
      [],
    ],
    [
      'blocked (the agent declared a blocker): parks',
      working(),
      outcome('blocked', { question: 'Need a key' }),
      record(),
      ['working→blocked on turn_complete'],
      'question',
      [],
    ],
    [
      'failed with a classified class: blocked on turn_failed, feedback kept for redelivery',
      working(),
      outcome('failed', { failure: { class: 'fatal_auth', reason: 'not logged in' } }),
      record(),
      ['working→blocked on turn_failed'],
      'error',
      ['t0000002'],
    ],
    [
      'interrupted (a crash): interrupted on turn_crashed, feedback kept for redelivery',
      working(),
      outcome('interrupted', { interrupt: interrupt() }),
      record(),
      ['working→interrupted on turn_crashed'],
      'error',
      ['t0000002'],
    ],
    [
      'interrupted by the user: a stop, not a crash',
      working(),
      outcome('interrupted', { interrupt: interrupt({ reason: 'stopped by the user', user_stopped: true }) }),
      record(),
      ['working→interrupted on stop'],
      'error',
      ['t0000002'],
    ],
    [
      'an ask returns to the status it left, whatever its outcome',
      working(
        [
          ['working', 'start'],
          ['conflict', 'turn_complete'],
          ['working', 'ask'],
        ],
        { violations: [violation(3, 'a.lock')] },
      ),
      outcome('failed', { failure: { class: 'transient_overload', reason: 'x' } }),
      record({ kind: 'ask', restore: 'conflict' }),
      ['working→conflict on turn_complete'],
      'error',
      ['t0000002'],
    ],
    [
      'an ask that touched protected files parks by the pending set',
      working([
        ['working', 'start'],
        ['blocked', 'turn_complete'],
        ['working', 'ask'],
      ]),
      outcome('completed', { violations: [{ file: 'a.lock', commit: 'c'.repeat(40), base: 'b'.repeat(40) }] }),
      record({ kind: 'ask', restore: 'blocked' }),
      ['working→conflict on turn_complete'],
      'result',
      [],
    ],
    [
      "another run's outcome: the turn is kept, the status is not touched",
      working(),
      outcome('completed', { run: 'run00002' }),
      record({ id: 'run00002', consumes: [] }),
      [],
      'result',
      ['t0000002'],
    ],
    [
      'a late outcome of the interrupted run: working on stale_response, then parked',
      working([
        ['working', 'start'],
        ['interrupted', 'turn_crashed'],
      ]),
      outcome('completed'),
      record(),
      ['interrupted→working on stale_response', 'working→blocked on turn_complete'],
      'result',
      [],
    ],
    [
      'a late outcome after a stop does not resume the stopped task',
      working([
        ['working', 'start'],
        ['interrupted', 'stop'],
      ]),
      outcome('completed'),
      record(),
      [],
      'result',
      [],
    ],
    [
      'a late crash outcome of an interrupted run changes nothing',
      working([
        ['working', 'start'],
        ['interrupted', 'turn_crashed'],
      ]),
      outcome('interrupted', { interrupt: interrupt() }),
      record(),
      [],
      'error',
      ['t0000002'],
    ],
  ];
  for (const [pins, task, o, run, expected, kind, pending] of rows) {
    const { d, after } = apply(task, o, run);
    t.same(moves(d.changes), expected, `${pins}: ${expected.join(', ') || 'no move'}`);
    t.same(
      d.turns.map((x) => [x.role, x.kind, x.run]),
      [['agent', kind, run.id]],
      `${pins}: one agent ${kind} turn`,
    );
    t.same(after.pending_feedback, pending, `${pins}: pending feedback ${JSON.stringify(pending)}`);
  }
});

t.test('applyOutcome: what the changes carry', async (t) => {
  const failed = apply(
    working(),
    outcome('failed', { attempts: 3, failure: { class: 'fatal_config', reason: 'bad flag' } }),
  ).d;
  t.same(
    failed.changes[0]!.details,
    { failure_class: 'fatal_config', attempts: 3 },
    'a failure names its class and attempts',
  );
  t.equal(failed.changes[0]!.actor, 'system', 'the system moves the task');
  t.equal(failed.changes[0]!.reason, 'fatal_config: bad flag', 'the reason is the outcome text');
  t.equal(failed.turns[0]!.details?.failure_class, 'fatal_config', 'the turn carries the class too');

  const up = apply(
    working(),
    outcome('interrupted', {
      interrupt: { reason: 'crashed', exit_code: 1, signal: null, logs: ['l'], at: ctx.now },
      upstream: { status: 'conflict', detail: 'd', files: ['a.ts'] },
    }),
  );
  t.equal(up.d.changes[0]!.host, 'here', 'a crash records the host whose supervisor ran it');
  t.same(up.d.changes[0]!.details?.upstream_conflict, ['a.ts'], 'a crash during merge-and-fix names the files');
  t.match(
    up.after.attention,
    { kind: 'interrupted', reason: /conflicting upstream merge \(a\.ts\)/ },
    'and is held for a person',
  );

  const again = working();
  again.turns.push(turn(5, 'agent', 'result', { run: RUN }));
  const twice = apply(again, outcome('completed')).d;
  t.ok(twice.empty, 'an outcome already recorded is a no-op');
});

t.test('outcomeText: the line a turn and a change carry', async (t) => {
  const rows: [Outcome, string][] = [
    [outcome('completed'), 'completed summary'],
    [outcome('decision_required', { question: 'Which?' }), 'Which?'],
    [outcome('decision_required'), 'decision_required summary'],
    [outcome('blocked', { question: 'Need a key' }), 'Need a key'],
    [outcome('failed', { failure: { class: 'fatal_auth', reason: 'no login' } }), 'fatal_auth: no login'],
    [outcome('failed'), 'failure: failed summary'],
    [
      outcome('interrupted', { interrupt: { reason: 'exit 137', exit_code: 137, signal: null, logs: [], at: '' } }),
      'interrupted: exit 137',
    ],
    [outcome('interrupted'), 'interrupted: interrupted summary'],
  ];
  for (const [o, text] of rows) t.equal(outcomeText(o), text, `${o.kind}: ${text}`);
});
