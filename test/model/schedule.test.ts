import t from 'tap';
import {
  byQueueOrder,
  isNeutral,
  NO_SCHEDULE,
  pickable,
  queueLabel,
  scheduleOf,
  type Schedule,
} from '../../lib/model/schedule.js';
import { lastChange } from '../../lib/model/fold.js';
import { heldFromWorkers } from '../../lib/model/pickup.js';
import type { StatusEntry } from '../../lib/model/docs.js';
import type { Status } from '../../lib/model/status.js';
import type { Trigger } from '../../lib/model/table.js';
import { change, view, walk } from '../helpers/docs.js';

// The fleet's queue derived from the changelog (lib/model/schedule.ts): every rule of
// scheduleOf, pickable, byQueueOrder, isNeutral and the one label the human surfaces print.

const LEASE = '2026-01-01T00:10:00.000Z';
const at = (clock: number) => Date.UTC(2026, 0, 1, 0, 0, clock);

/** The schedule of a history: `walk` moves, then `more` entries appended (clocks continue). */
const sched = (changelog: StatusEntry[]) => scheduleOf(view({ changelog }).changelog);
const n = (clock: number, s: Status, trigger: Trigger, details?: StatusEntry['details']) =>
  change(clock, s, s, trigger, details ? { details } : {});
const claim = (clock: number, from: Status, trigger: Trigger, host = 'box-2') =>
  change(clock, from, 'working', trigger, {
    actor: 'system',
    host,
    run: `run-${clock}`,
    details: { claim: { host, lease_until: LEASE } },
  });

t.test('the fold carries scheduleOf its changelog', async (t) => {
  const v = view({ changelog: [...walk(), n(2, 'backlog', 'queue', { priority: 2 })] });
  t.same({ ...v.schedule, held: null }, scheduleOf(v.changelog));
  t.equal(v.schedule.held, heldFromWorkers(v), 'and why no worker will pick it (lib/model/pickup.ts)');
  t.equal(v.schedule.priority, 2);
});

t.test('isNeutral: from === to, and nothing else', async (t) => {
  t.ok(isNeutral({ from: 'backlog', status: 'backlog' }));
  t.ok(isNeutral({ from: 'interrupted', status: 'interrupted' }));
  t.notOk(isNeutral({ from: 'backlog', status: 'working' }));
  t.notOk(isNeutral({ from: null, status: 'backlog' }), 'the creation entry moves (from nothing)');
});

t.test('queue, unqueue, pause, unpause set the flags; priority is kept', async (t) => {
  t.same(sched(walk()), NO_SCHEDULE, 'a new task is not queued, priority 0');
  const base = walk();
  t.same(sched([...base, n(2, 'backlog', 'queue')]), { ...NO_SCHEDULE, queued: true }, 'queue without a priority');
  t.equal(sched([...base, n(2, 'backlog', 'queue', { priority: 7 })]).priority, 7, 'queue --priority 7');
  t.equal(
    sched([...base, n(2, 'backlog', 'queue', { priority: 7 }), n(3, 'backlog', 'queue')]).priority,
    7,
    'a re-queue without a priority keeps it',
  );
  t.equal(
    sched([...base, n(2, 'backlog', 'queue', { priority: 7 }), n(3, 'backlog', 'queue', { priority: -2 })]).priority,
    -2,
    'a re-queue with one sets it',
  );
  t.equal(
    sched([...base, n(2, 'backlog', 'queue', { priority: '9' as never })]).priority,
    0,
    'a priority that is not a number is ignored',
  );
  const unq = sched([...base, n(2, 'backlog', 'queue', { priority: 4 }), n(3, 'backlog', 'unqueue')]);
  t.equal(unq.queued, false, 'unqueue takes it out');
  t.equal(unq.priority, 4, 'and keeps the priority for a re-queue');
  const p = [...base, n(2, 'backlog', 'queue'), n(3, 'backlog', 'pause')];
  t.same(sched(p), { ...NO_SCHEDULE, queued: true, paused: true }, 'pause holds a queued task');
  t.same(sched([...p, n(4, 'backlog', 'unpause')]), { ...NO_SCHEDULE, queued: true }, 'unpause releases it');
  t.equal(sched([...p, n(4, 'backlog', 'unqueue')]).paused, true, 'unqueue leaves paused alone');
});

t.test("a person's start, resume or unblock takes a task out of the queue; moves clear paused", async (t) => {
  const q = [...walk(), n(2, 'backlog', 'queue', { priority: 3 }), n(3, 'backlog', 'pause')];
  const started = sched([...q, change(4, 'backlog', 'working', 'start')]);
  t.equal(started.queued, false, 'a start without a claim (a person) dequeues');
  t.equal(started.paused, false, 'and a move clears paused');
  t.equal(started.priority, 3, 'the priority stays');
  const crashedQ = [
    ...walk(['working', 'start'], ['interrupted', 'turn_crashed']),
    n(4, 'interrupted', 'queue'),
    n(5, 'interrupted', 'pause'),
  ];
  for (const trigger of ['resume', 'unblock', 'auto_resume'] as const) {
    const s = sched([...crashedQ, change(6, 'interrupted', 'working', trigger)]);
    t.equal(s.queued, false, `${trigger} without a claim dequeues`);
    t.equal(s.paused, false, `${trigger} clears paused`);
  }
  const closed = sched([...q.slice(0, 2), change(3, 'backlog', 'abandoned', 'close')]);
  t.equal(closed.queued, false, 'close dequeues');
  const blocked = sched([
    ...walk(),
    n(2, 'backlog', 'queue'),
    claim(3, 'backlog', 'start'),
    change(4, 'working', 'blocked', 'turn_complete'),
  ]);
  t.equal(blocked.queued, false, 'a finished turn (blocked) leaves the queue');
  t.equal(blocked.claim, null, 'and holds no claim');
});

t.test('a fleet claim keeps a task queued, through its crash, and records the claim', async (t) => {
  const q = [...walk(), n(2, 'backlog', 'queue', { priority: 1 })];
  const claimed = sched([...q, claim(3, 'backlog', 'start')]);
  t.equal(claimed.queued, true, 'a claim keeps it queued');
  t.same(claimed.claim, { host: 'box-2', lease_until: LEASE, run: 'run-3' }, 'the claim: host, lease, run');
  const crashed = sched([...q, claim(3, 'backlog', 'start'), change(4, 'working', 'interrupted', 'turn_crashed')]);
  t.equal(crashed.queued, true, 'a crash keeps it queued (the fleet resumes it)');
  t.equal(crashed.claim, null, 'the claim ends with the turn');
  const again = sched([
    ...q,
    claim(3, 'backlog', 'start'),
    change(4, 'working', 'interrupted', 'turn_crashed'),
    claim(5, 'interrupted', 'auto_resume', 'box-3'),
  ]);
  t.same(again.claim?.host, 'box-3', 'a takeover claim is the new claim');
  t.equal(again.queued, true);
  const hostless = change(3, 'backlog', 'working', 'start', {
    host: 'entry-host',
    run: 'r1',
    details: { claim: { lease_until: LEASE } },
  });
  t.equal(sched([...q, hostless]).claim?.host, 'entry-host', "a claim without a host is the entry's host");
  const bad = change(3, 'backlog', 'working', 'start', { details: { claim: { host: 'x', lease_until: 5 } } });
  t.equal(sched([...q, bad]).claim, null, 'a claim without a lease_until string is no claim');
  t.equal(sched([...q, bad]).queued, false, 'so that start is a person dequeuing it');
  const arr = change(3, 'backlog', 'working', 'start', { details: { claim: ['x'] } });
  t.equal(sched([...q, arr]).claim, null, 'an array is no claim');
});

t.test('a usage_limit interruption sets not_before; the next move clears it', async (t) => {
  const until = '2026-01-01T05:00:00.000Z';
  const base = [...walk(), n(2, 'backlog', 'queue'), claim(3, 'backlog', 'start')];
  const limited = [...base, change(4, 'working', 'interrupted', 'usage_limit', { details: { not_before: until } })];
  const s = sched(limited);
  t.equal(s.not_before, until, 'not_before from the entry');
  t.equal(s.queued, true, 'still queued');
  t.equal(sched([...limited, n(5, 'interrupted', 'pause')]).not_before, until, 'a neutral entry keeps the wait');
  t.equal(sched([...limited, claim(5, 'interrupted', 'auto_resume')]).not_before, null, 'a move clears it');
  const crash = sched([
    ...base,
    change(4, 'working', 'interrupted', 'turn_crashed', { details: { not_before: until } }),
  ]);
  t.equal(crash.not_before, null, 'only usage_limit sets it');
  const noTime = sched([...base, change(4, 'working', 'interrupted', 'usage_limit')]);
  t.equal(noTime.not_before, null, 'a usage_limit without a time sets none');
  const v = view({ changelog: limited });
  t.equal(v.consecutive_interruptions, 0, 'a usage limit is not a crash: the breaker is untouched');
  t.equal(v.attention, null, 'and asks nobody for anything');
});

t.test('entries a merge set aside count for nothing', async (t) => {
  // Two clones queue concurrently: the replay applies one; an entry it cannot apply is set aside.
  const s = sched([
    ...walk(['working', 'start']),
    n(3, 'backlog', 'queue', { priority: 5 }), // from backlog, but the task is working: set aside
  ]);
  t.same(s, NO_SCHEDULE, 'a set-aside queue entry queues nothing');
});

t.test('neutral entries move nothing: lastChange, attention and status skip them', async (t) => {
  const crashed = walk(['working', 'start'], ['interrupted', 'turn_crashed']);
  const before = view({ changelog: crashed });
  const after = view({ changelog: [...crashed, n(4, 'interrupted', 'pause'), n(5, 'interrupted', 'unpause')] });
  t.equal(after.status, 'interrupted');
  t.equal(lastChange(after)?.trigger, 'turn_crashed', 'lastChange skips pause/unpause');
  t.same(after.attention, before.attention, 'attention is what the crash left');
  t.equal(after.consecutive_interruptions, 1, 'pause does not reset the breaker');
  const requeued = view({ changelog: [...crashed, n(4, 'interrupted', 'queue')] });
  t.equal(requeued.consecutive_interruptions, 0, 'queue (a person sending it to the fleet) resets the breaker');
});

t.test('pickable: queued, not paused, and past any not_before', async (t) => {
  const q: Schedule = { ...NO_SCHEDULE, queued: true };
  t.ok(pickable(q, at(0)));
  t.notOk(pickable(NO_SCHEDULE, at(0)), 'not queued');
  t.notOk(pickable({ ...q, paused: true }, at(0)), 'paused');
  const nb = new Date(at(30)).toISOString();
  t.notOk(pickable({ ...q, not_before: nb }, at(29)), 'before the reset');
  t.ok(pickable({ ...q, not_before: nb }, at(30)), 'at the reset');
  t.ok(pickable({ ...q, not_before: nb }, at(31)), 'after it');
});

t.test('byQueueOrder: higher priority first, then oldest, then id', async (t) => {
  const rows = [
    { id: 'b', priority: 0, created_at: '2026-01-01T00:00:02Z' },
    { id: 'a', priority: 0, created_at: '2026-01-01T00:00:02Z' },
    { id: 'c', priority: 5, created_at: '2026-01-01T00:00:09Z' },
    { id: 'd', priority: -1, created_at: '2026-01-01T00:00:00Z' },
    { id: 'e', priority: 0, created_at: '2026-01-01T00:00:01Z' },
  ];
  t.same(
    [...rows].sort(byQueueOrder).map((r) => r.id),
    ['c', 'e', 'a', 'b', 'd'],
  );
  t.equal(byQueueOrder(rows[0]!, rows[0]!), 0, 'a row ties only with itself');
});

t.test('queueLabel: the one line list, show and watch print', async (t) => {
  const now = new Date(2026, 5, 15, 9, 0).getTime(); // local time
  t.equal(queueLabel(NO_SCHEDULE, now), null, 'nothing to say');
  t.equal(queueLabel({ ...NO_SCHEDULE, priority: 4 }, now), null, 'a priority alone (unqueued) says nothing');
  t.equal(queueLabel({ ...NO_SCHEDULE, queued: true, priority: 2 }, now), 'queued, priority 2');
  t.equal(queueLabel({ ...NO_SCHEDULE, queued: true, paused: true }, now), 'queued, priority 0, paused');
  t.equal(queueLabel({ ...NO_SCHEDULE, paused: true }, now), 'paused', 'a paused interrupted task');
  const today = new Date(2026, 5, 15, 14, 5).toISOString();
  t.equal(
    queueLabel({ ...NO_SCHEDULE, queued: true, not_before: today }, now),
    'queued, priority 0, waiting for the usage limit until 14:05',
    'local HH:MM today',
  );
  const tomorrow = new Date(2026, 5, 16, 3, 7).toISOString();
  t.equal(
    queueLabel({ ...NO_SCHEDULE, not_before: tomorrow }, now),
    'waiting for the usage limit until 2026-06-16 03:07',
    'with the date when not today',
  );
  const past = new Date(2026, 5, 15, 8, 59).toISOString();
  t.equal(queueLabel({ ...NO_SCHEDULE, queued: true, not_before: past }, now), 'queued, priority 0', 'a wait over');
  t.equal(
    queueLabel({ ...NO_SCHEDULE, queued: true, claim: { host: 'ci-3', lease_until: LEASE, run: 'r' } }, now),
    'queued, priority 0, claimed by ci-3',
  );
});
