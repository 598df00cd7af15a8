import t from 'tap';
import { byClock } from '../../lib/model/docs.js';
import {
  consecutiveInterruptions,
  foldTask,
  lastChange,
  pendingViolations,
  protectedPoints,
  replayStatus,
} from '../../lib/model/fold.js';
import type { SessionDoc, StatusEntry } from '../../lib/model/docs.js';
import type { Status } from '../../lib/model/status.js';
import type { Trigger } from '../../lib/model/table.js';
import { change, decision, docs, turn, view, violation, walk } from '../helpers/docs.js';

// The fold: status is replayed through the transition table, never stored; the counters
// and sets a view carries are derived from the append-only entries on every read.

const create = change(1, null, 'backlog', 'create');

t.test('byClock: Lamport clock first, ties by entry id, never wall-clock time', async (t) => {
  t.ok(byClock({ clock: 1, id: 'zzzzzzzz' }, { clock: 2, id: 'aaaaaaaa' }) < 0, 'the lower clock first');
  t.ok(byClock({ clock: 2, id: 'aaaaaaaa' }, { clock: 1, id: 'zzzzzzzz' }) > 0, 'the higher clock last');
  t.ok(byClock({ clock: 3, id: 'aaaaaaaa' }, { clock: 3, id: 'bbbbbbbb' }) < 0, 'a tie goes by id');
  t.ok(byClock({ clock: 3, id: 'bbbbbbbb' }, { clock: 3, id: 'aaaaaaaa' }) > 0, 'a tie goes by id, either way');
  t.equal(byClock({ clock: 3, id: 'aaaaaaaa' }, { clock: 3, id: 'aaaaaaaa' }), 0, 'the same entry');
});

t.test('replayStatus: one row per history shape', async (t) => {
  const rows: [pins: string, log: StatusEntry[], status: Status | null, applied: number, asideClocks: number[]][] = [
    ['an empty changelog has no status', [], null, 0, []],
    ['creation alone is backlog', [create], 'backlog', 1, []],
    ['a history without its creation applies nothing', [change(2, 'backlog', 'working', 'start')], null, 0, [2]],
    ['a creation into any status but backlog is set aside', [change(1, null, 'working', 'create')], null, 0, [1]],
    [
      'a second creation is set aside',
      [create, change(2, null, 'backlog', 'create'), change(3, 'backlog', 'working', 'start')],
      'working',
      2,
      [2],
    ],
    [
      'entries apply in clock order, not in list order',
      [change(3, 'working', 'blocked', 'turn_complete'), change(2, 'backlog', 'working', 'start'), create],
      'blocked',
      3,
      [],
    ],
    [
      'an entry from another status than the current one is set aside; later ones still apply',
      [
        create,
        change(2, 'blocked', 'working', 'unblock'),
        change(3, 'backlog', 'working', 'start'),
        change(4, 'working', 'blocked', 'turn_complete'),
      ],
      'blocked',
      3,
      [2],
    ],
    [
      'a trigger the edge does not name is set aside',
      [...walk(['working', 'start'], ['blocked', 'turn_complete']), change(4, 'blocked', 'working', 'resume')],
      'blocked',
      3,
      [4],
    ],
    [
      'a transition the table lacks is set aside (blocked → complete skips merging)',
      [...walk(['working', 'start'], ['blocked', 'turn_complete']), change(4, 'blocked', 'complete', 'accept')],
      'blocked',
      3,
      [4],
    ],
    [
      'zombie by a human actor is set aside',
      [create, change(2, 'backlog', 'zombie', 'zombie', { actor: 'human' })],
      'backlog',
      1,
      [2],
    ],
    [
      'zombie by the system applies, and zombie completes',
      [create, change(2, 'backlog', 'zombie', 'zombie'), change(3, 'zombie', 'complete', 'merge_done')],
      'complete',
      3,
      [],
    ],
    [
      'two clones acting on the same status at the same clock: the lower id wins, the other is set aside',
      [
        ...walk(['working', 'start'], ['blocked', 'turn_complete']),
        change(4, 'blocked', 'abandoned', 'close', { id: 'bbbbbbbb' }),
        change(4, 'blocked', 'working', 'unblock', { id: 'aaaaaaaa' }),
      ],
      'working',
      4,
      [4],
    ],
    [
      'a reopened task replays past its terminal status',
      walk(['working', 'start'], ['blocked', 'turn_complete'], ['abandoned', 'reject'], ['blocked', 'reopen']),
      'blocked',
      5,
      [],
    ],
  ];
  for (const [pins, log, status, applied, aside] of rows) {
    const r = replayStatus(log);
    t.equal(r.status, status, `${pins}: status ${status}`);
    t.equal(r.applied.length, applied, `${pins}: ${applied} applied`);
    t.same(
      r.setAside.map((e) => e.clock),
      aside,
      `${pins}: set aside ${JSON.stringify(aside)}`,
    );
  }
  const order = replayStatus([
    change(3, 'working', 'blocked', 'turn_complete'),
    change(2, 'backlog', 'working', 'start'),
    create,
  ]);
  t.same(
    order.applied.map((e) => e.clock),
    [1, 2, 3],
    'applied is in clock order',
  );
  const input = [change(2, 'backlog', 'working', 'start'), create];
  replayStatus(input);
  t.same(
    input.map((e) => e.clock),
    [2, 1],
    'the input is not reordered in place',
  );
});

t.test(
  'consecutiveInterruptions: the circuit breaker input (reference: reset on completion, resume, unblock)',
  async (t) => {
    const crash: [Status, Trigger] = ['interrupted', 'turn_crashed'];
    const auto: [Status, Trigger] = ['working', 'auto_resume'];
    const rows: [string, [Status, Trigger][], number][] = [
      [
        'no crash',
        [
          ['working', 'start'],
          ['blocked', 'turn_complete'],
        ],
        0,
      ],
      ['one crash', [['working', 'start'], crash], 1],
      ['crashes across auto-resumes add up', [['working', 'start'], crash, auto, crash], 2],
      ['three crashes in a row trip the breaker', [['working', 'start'], crash, auto, crash, auto, crash], 3],
      [
        'a completed turn resets the count',
        [['working', 'start'], crash, auto, ['blocked', 'turn_complete'], ['working', 'ask'], crash],
        1,
      ],
      [
        'lazy resume resets the count (human intervention)',
        [['working', 'start'], crash, auto, crash, ['working', 'resume'], crash],
        1,
      ],
      ['lazy unblock resets the count', [['working', 'start'], crash, auto, crash, ['working', 'unblock'], crash], 1],
      [
        'an answer resets the count',
        [['working', 'start'], crash, auto, ['blocked', 'clarify'], ['working', 'answer'], crash],
        1,
      ],
      [
        'a stop is no crash',
        [
          ['working', 'start'],
          ['interrupted', 'stop'],
        ],
        0,
      ],
      [
        'a stale response does not reset by itself',
        [['working', 'start'], crash, ['working', 'stale_response'], crash],
        2,
      ],
      ['a failed turn neither counts nor resets', [['working', 'start'], crash, ['blocked', 'turn_failed']], 1],
    ];
    for (const [pins, steps, n] of rows) {
      const log = walk(...steps);
      t.equal(replayStatus(log).applied.length, log.length, `${pins}: the history is valid`);
      t.equal(consecutiveInterruptions(replayStatus(log).applied), n, `${pins}: ${n}`);
      t.equal(view({ changelog: log }).consecutive_interruptions, n, `${pins}: the view carries ${n}`);
    }
    // Issue 27: a claim its live worker could not keep (claim_unkept) is forgiven once in a row, then counts.
    const unkept = (log: StatusEntry[], ...at: number[]) => {
      for (const i of at) log[i]!.details = { claim_unkept: true };
      return log;
    };
    const unkeptRows: [string, StatusEntry[], number][] = [
      ['one unkept claim is no crash', unkept(walk(['working', 'start'], crash), 2), 0],
      ['an unkept claim and a crash: one', unkept(walk(['working', 'start'], crash, auto, crash), 2), 1],
      [
        'unkept again and again: from the second',
        unkept(walk(['working', 'start'], crash, auto, crash, auto, crash), 2, 4, 6),
        2,
      ],
      [
        'four unkept in a row trip the breaker',
        unkept(walk(['working', 'start'], crash, auto, crash, auto, crash, auto, crash), 2, 4, 6, 8),
        3,
      ],
      [
        'a completed turn forgives the next one again',
        unkept(
          walk(
            ['working', 'start'],
            crash,
            auto,
            crash,
            auto,
            ['blocked', 'turn_complete'],
            ['working', 'unblock'],
            crash,
          ),
          2,
          4,
          8,
        ),
        0,
      ],
    ];
    for (const [pins, log, n] of unkeptRows) {
      t.equal(consecutiveInterruptions(replayStatus(log).applied), n, `${pins}: ${n}`);
    }
  },
);

t.test('pendingViolations: a file is pending until a decision after its latest violation', async (t) => {
  const rows: [string, Parameters<typeof docs>[0], string[]][] = [
    ['no violation, nothing pending', {}, []],
    ['a violation is pending', { violations: [violation(2, 'a.lock')] }, ['a.lock']],
    [
      'an approve decides it',
      { violations: [violation(2, 'a.lock')], decisions: [decision(3, 'a.lock', 'approve')] },
      [],
    ],
    ['a revert decides it', { violations: [violation(2, 'a.lock')], decisions: [decision(3, 'a.lock', 'revert')] }, []],
    [
      'a decision is sticky: it decides only that file',
      { violations: [violation(2, 'a.lock'), violation(3, 'b.lock')], decisions: [decision(4, 'a.lock', 'approve')] },
      ['b.lock'],
    ],
    [
      'a new violation after a decision is pending again',
      { violations: [violation(2, 'a.lock'), violation(4, 'a.lock')], decisions: [decision(3, 'a.lock', 'approve')] },
      ['a.lock'],
    ],
    [
      'a decision before the only violation decides nothing',
      { violations: [violation(3, 'a.lock')], decisions: [decision(2, 'a.lock', 'approve')] },
      ['a.lock'],
    ],
    ['a decision on a file never flagged is ignored', { decisions: [decision(2, 'x', 'revert')] }, []],
    [
      'sorted by file name',
      { violations: [violation(2, 'z.lock'), violation(3, 'a.lock'), violation(4, 'm.lock')] },
      ['a.lock', 'm.lock', 'z.lock'],
    ],
    [
      'one entry per file however often it was flagged',
      { violations: [violation(2, 'a.lock'), violation(3, 'a.lock')] },
      ['a.lock'],
    ],
  ];
  for (const [pins, more, files] of rows) {
    t.same(
      pendingViolations(docs(more)).map((p) => p.file),
      files,
      pins,
    );
  }
  const latest = pendingViolations(
    docs({
      violations: [
        violation(2, 'a.lock', { run: 'run00001', commit: '1'.repeat(40) }),
        violation(5, 'a.lock', { run: 'run00002', commit: '2'.repeat(40), base: '3'.repeat(40) }),
      ],
    }),
  );
  t.same(
    latest,
    [
      {
        file: 'a.lock',
        run: 'run00002',
        commit: '2'.repeat(40),
        base: '3'.repeat(40),
        since: violation(5, 'x').timestamp,
      },
    ],
    'the latest violation names the run, commit, base and time',
  );
});

t.test('protectedPoints: what each flagged file covers and what a revert restores', async (t) => {
  const V = violation(2, 'a.lock', { commit: 'c'.repeat(40), base: 'b'.repeat(40) });
  const rows: [string, Parameters<typeof docs>[0], object][] = [
    [
      'pending: covers the flagged commit, restores the base',
      { violations: [V] },
      { pending: true, covered: 'c'.repeat(40), restore: 'b'.repeat(40) },
    ],
    [
      'approved: the flagged content is the new protected point',
      { violations: [V], decisions: [decision(3, 'a.lock', 'approve')] },
      { pending: false, covered: 'c'.repeat(40), restore: 'c'.repeat(40) },
    ],
    [
      'reverted: the base is the protected point',
      { violations: [V], decisions: [decision(3, 'a.lock', 'revert')] },
      { pending: false, covered: 'b'.repeat(40), restore: 'b'.repeat(40) },
    ],
  ];
  for (const [pins, more, point] of rows) t.same(protectedPoints(docs(more)).get('a.lock'), point, pins);
  t.equal(protectedPoints(docs()).size, 0, 'no violation, no protected point');
});

t.test('lastChange: the latest status change a merge did not set aside', async (t) => {
  const v = view({
    changelog: [
      ...walk(['working', 'start'], ['blocked', 'turn_complete']),
      change(4, 'blocked', 'complete', 'accept'),
    ],
  });
  t.equal(lastChange(v)?.clock, 3, 'the set-aside entry at clock 4 is skipped');
  t.equal(lastChange(v, 'working')?.trigger, 'start', 'the latest into working');
  t.equal(lastChange(v, 'complete'), undefined, 'a set-aside entry is never the change in force');
  t.equal(lastChange({ changelog: [] }), undefined, 'no change at all');
});

t.test('foldTask: derived fields, one row each', async (t) => {
  const session = (id: string, clock: number, ended: string | null = null): SessionDoc => ({
    id,
    agent: 'fake',
    branch: `lazy/${id}`,
    base: 'main',
    base_commit: 'b'.repeat(40),
    started_at: new Date(clock * 1000).toISOString(),
    ended_at: ended,
    outcome: null,
    clock,
  });
  const started = walk(['working', 'start'], ['blocked', 'turn_complete'], ['working', 'unblock']);
  started[1]!.run = 'run00001';
  started[3]!.run = 'run00002';

  // firstmate: request changes increments the revision count.
  const fb = view({ turns: [turn(2, 'human', 'feedback'), turn(3, 'human', 'comment'), turn(4, 'human', 'feedback')] });
  t.equal(fb.revisions, 2, 'revisions count feedback turns only');

  // Reference (feedback redelivery): feedback is pending until a completed turn consumes it; an error turn consumes nothing.
  const redeliver = view({
    turns: [
      turn(2, 'human', 'prompt', { feedback: 'pending' }),
      turn(3, 'agent', 'result', { consumes: ['t0000002'] }),
      turn(4, 'human', 'feedback', { feedback: 'pending' }),
      turn(5, 'agent', 'error'),
    ],
  });
  t.same(
    redeliver.pending_feedback,
    ['t0000004'],
    'consumed feedback is not pending; the crashed turn consumed nothing',
  );
  t.same(
    redeliver.turns.map((x) => x.feedback),
    ['consumed', null, 'pending', null],
    'each turn says whether it carries feedback and whether it was consumed',
  );
  t.same(
    redeliver.turns.map((x) => x.sequence),
    [1, 2, 3, 4],
    'turn sequence numbers are derived from the clock order',
  );

  t.equal(view({ changelog: started }).current_run, 'run00002', 'current_run: the latest move into working');
  t.equal(view().current_run, null, 'no run before a start');

  const merging = walk(['working', 'start'], ['blocked', 'turn_complete'], ['merging', 'accept']);
  merging[3]!.details = { owner: { host: 'h', pid: 7 } };
  t.same(view({ changelog: merging }).merging_owner, { host: 'h', pid: 7 }, 'merging_owner while merging');
  t.equal(view({ changelog: started }).merging_owner, null, 'no merging owner outside merging');

  t.equal(
    view({
      turns: [
        turn(2, 'agent', 'result', { details: { agent_session_id: 'S1' } }),
        turn(3, 'agent', 'result', { details: { agent_session_id: 'S2' } }),
        turn(4, 'agent', 'error'),
      ],
    }).agent_session_id,
    'S2',
    'agent_session_id: the latest turn that reported one',
  );

  const aside = view({ changelog: [create, change(2, 'blocked', 'working', 'unblock')] });
  t.same(
    aside.concurrent_changes.map((c) => c.clock),
    [2],
    'concurrent_changes: the entries the merged history set aside',
  );
  t.same(
    aside.changelog.map((c) => c.set_aside),
    [false, true],
    'the changelog marks each entry',
  );

  const two = view({
    changelog: started,
    sessions: [session('sess0002', 5), session('sess0001', 2)],
    turns: [
      turn(2, 'human', 'prompt', { run: 'run00001', session: 'sess0001' }),
      turn(4, 'human', 'feedback', { run: 'run00002', session: 'sess0001' }),
    ],
  });
  t.equal(two.session?.id, 'sess0001', 'two open sessions: the one the latest applied run belongs to, not the newest');
  t.equal(
    view({ sessions: [session('sess0001', 2), session('sess0002', 3)] }).session?.id,
    'sess0002',
    'else the newest open one',
  );
  t.equal(view({ sessions: [session('sess0001', 2, 'x')] }).session, null, 'an ended session is not the session');

  const late = view({ changelog: started, turns: [turn(9, 'human', 'comment')] });
  t.equal(late.updated_at, turn(9, 'human', 'comment').timestamp, 'updated_at: the latest entry of any kind');
  t.equal(late.clock, 9, 'clock: the highest Lamport clock of any document');
  t.equal(view().updated_at, docs().task.created_at, 'an untouched task: its creation');
  t.equal(foldTask(docs({ changelog: [] })).status, 'backlog', 'a changelog that replays to nothing reads as backlog');
  t.equal(view({ changelog: started }).category, 'active', 'category follows the status');
});

t.test('fencing: a run another worker took over never lands its own outcome, whatever its clock', async (t) => {
  const claim = (clock: number, from: Status, run: string, host: string) =>
    change(clock, from, 'working', from === 'backlog' ? 'start' : 'auto_resume', {
      actor: 'system',
      run,
      host,
      details: { claim: { host, lease_until: '2026-01-01T00:05:00.000Z' } },
    });
  const takeover = change(4, 'working', 'interrupted', 'turn_crashed', {
    id: 'b0000004',
    actor: 'system',
    run: 'run00001',
    host: 'box-a',
    details: { lease_expired: { host: 'box-a', run: 'run00001', until: '2026-01-01T00:05:00.000Z' } },
  });
  // The dead worker's outcome, merged later: the same clock as the takeover, and sorting before it.
  const stale = change(4, 'working', 'blocked', 'turn_complete', { id: 'a0000004', actor: 'system', run: 'run00001' });
  const log = [
    create,
    claim(2, 'backlog', 'run00001', 'box-a'),
    stale,
    takeover,
    claim(5, 'interrupted', 'run00002', 'box-b'),
    change(6, 'working', 'blocked', 'turn_complete', { actor: 'system', run: 'run00002' }),
  ];
  const r = replayStatus(log);
  t.equal(r.status, 'blocked');
  t.same(
    r.setAside.map((e) => e.id),
    [stale.id],
    'only the taken-over run’s own outcome is set aside',
  );
  t.same(
    r.applied.map((e) => `${e.run ?? '-'}:${e.trigger}`),
    ['-:create', 'run00001:start', 'run00001:turn_crashed', 'run00002:auto_resume', 'run00002:turn_complete'],
    'the takeover and the new run’s turn are the story',
  );
  const v = view({ changelog: log });
  t.equal(v.current_run, 'run00002');
  t.equal(v.concurrent_changes.length, 1, 'the stale outcome shows as a concurrent change, kept, not lost');
  t.equal(v.consecutive_interruptions, 0, 'the new run completed');
});
