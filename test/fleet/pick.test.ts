import t from 'tap';
import { change, docs } from '../helpers/docs.js';
import { foldTask, type TaskView } from '../../lib/model/fold.js';
import type { StatusEntry } from '../../lib/model/docs.js';
import { candidates, leaseFault, pinnedTasks, SKEW_MS } from '../../lib/fleet/pick.js';
import type { Lease } from '../../lib/fleet/lease.js';

// The pick rule: what a worker may take (start, auto-resume, takeover of an expired lease) and in
// which order (higher priority first, equal priorities oldest first, then by id).

const NOW = Date.parse('2026-06-01T12:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString();

function task(id: string, created: string, changelog: StatusEntry[], acceptance = ['done']): TaskView {
  const d = docs({ id, changelog });
  return foldTask({ ...d, task: { ...d.task, id, acceptance, created_at: created } });
}
const created = (n: number) => `2026-01-0${n}T00:00:00.000Z`;
const queued = (clock: number, from: 'backlog' | 'interrupted', priority?: number) =>
  change(clock, from, from, 'queue', { actor: 'human', ...(priority === undefined ? {} : { details: { priority } }) });
const backlogQueued = (priority?: number) => [change(1, null, 'backlog', 'create'), queued(2, 'backlog', priority)];
const claimed = (clock: number, from: 'backlog' | 'interrupted', run: string) =>
  change(clock, from, 'working', from === 'backlog' ? 'start' : 'auto_resume', {
    actor: 'system',
    run,
    host: 'box-a',
    details: { claim: { host: 'box-a', lease_until: iso(NOW - 1000) } },
  });
const crashed = (clock: number, run: string) =>
  change(clock, 'working', 'interrupted', 'turn_crashed', { actor: 'system', run, host: 'box-a' });
const lease = (id: string, until: number, run = 'run00001'): Lease => ({
  oid: 'a'.repeat(40),
  doc: { task: id, run, host: 'box-a', until: iso(until), renewed_at: iso(until - 300_000) },
});
const pick = (views: TaskView[], leases = new Map<string, Lease>(), busy = new Set<string>()) =>
  candidates(views, leases, NOW, busy, 300_000).map((p) => `${p.id}:${p.kind}`);

t.test('queue order: higher priority first, equal priorities oldest first, then by id', async (t) => {
  const views = [
    task('aaaa0001', created(3), backlogQueued()),
    task('aaaa0002', created(1), backlogQueued()),
    task('aaaa0003', created(5), backlogQueued(5)),
    task('aaaa0004', created(2), backlogQueued(-1)),
    task('aaaa0005', created(1), backlogQueued()),
  ];
  t.same(pick(views), ['aaaa0003:start', 'aaaa0002:start', 'aaaa0005:start', 'aaaa0001:start', 'aaaa0004:start']);
});

t.test('only queued, unpaused backlog tasks with a criterion start; tasks this worker runs are skipped', async (t) => {
  const paused = [...backlogQueued(), change(3, 'backlog', 'backlog', 'pause')];
  const unqueued = [...backlogQueued(), change(3, 'backlog', 'backlog', 'unqueue')];
  const views = [
    task('bbbb0001', created(1), [change(1, null, 'backlog', 'create')]),
    task('bbbb0002', created(1), paused),
    task('bbbb0003', created(1), unqueued),
    task('bbbb0004', created(1), backlogQueued(), []),
    task('bbbb0005', created(1), backlogQueued()),
    task('bbbb0006', created(1), backlogQueued()),
  ];
  t.same(pick(views), ['bbbb0005:start', 'bbbb0006:start']);
  t.same(pick(views, new Map(), new Set(['bbbb0005'])), ['bbbb0006:start'], 'busy tasks are not picked again');
});

t.test(
  'a queued fleet task back from a crash resumes under the breaker; a stopped one waits for a person',
  async (t) => {
    const once = [...backlogQueued(), claimed(3, 'backlog', 'run00001'), crashed(4, 'run00001')];
    const stopped = [
      ...backlogQueued(),
      claimed(3, 'backlog', 'run00001'),
      change(4, 'working', 'interrupted', 'stop', { run: 'run00001' }),
    ];
    const thrice = [
      ...once,
      claimed(5, 'interrupted', 'run00002'),
      crashed(6, 'run00002'),
      claimed(7, 'interrupted', 'run00003'),
      crashed(8, 'run00003'),
    ];
    const limited = (until: number) => [
      ...backlogQueued(),
      claimed(3, 'backlog', 'run00001'),
      change(4, 'working', 'interrupted', 'usage_limit', {
        actor: 'system',
        run: 'run00001',
        details: { not_before: iso(until) },
      }),
    ];
    t.same(pick([task('cccc0001', created(1), once)]), ['cccc0001:resume']);
    t.same(pick([task('cccc0002', created(1), stopped)]), [], 'stopped by a person: never picked');
    t.same(pick([task('cccc0003', created(1), thrice)]), [], 'the breaker tripped: left for a person');
    t.same(pick([task('cccc0004', created(1), limited(NOW + 60_000))]), [], 'a usage limit not reset yet');
    t.same(pick([task('cccc0005', created(1), limited(NOW - 1))]), ['cccc0005:resume'], 'after the reset');
  },
);

t.test('a working task is taken over only when its lease has expired', async (t) => {
  const working = (id: string) => task(id, created(1), [...backlogQueued(), claimed(3, 'backlog', 'run00001')]);
  const views = [working('dddd0001'), working('dddd0002'), working('dddd0003'), working('dddd0004')];
  const leases = new Map<string, Lease>([
    ['dddd0001', lease('dddd0001', NOW - 1)],
    ['dddd0002', lease('dddd0002', NOW + 60_000)],
    ['dddd0003', { oid: 'b'.repeat(40), doc: null }],
  ]);
  t.same(pick(views, leases), ['dddd0001:takeover'], 'expired: taken; live, unreadable or no lease: left alone');
  t.same(
    candidates(views, leases, NOW, new Set(), 300_000)[0]!.lease,
    leases.get('dddd0001'),
    'the pick carries the lease',
  );
});

t.test(
  'a person queueing an interrupted task is its say-so: a stopped turn or a tripped breaker is resumed',
  async (t) => {
    const stopped = [
      ...backlogQueued(),
      claimed(3, 'backlog', 'run00001'),
      change(4, 'working', 'interrupted', 'stop', { actor: 'human', run: 'run00001' }),
    ];
    const tripped = [
      ...backlogQueued(),
      claimed(3, 'backlog', 'run00001'),
      crashed(4, 'run00001'),
      claimed(5, 'interrupted', 'run00002'),
      crashed(6, 'run00002'),
      claimed(7, 'interrupted', 'run00003'),
      crashed(8, 'run00003'),
    ];
    t.same(
      pick([task('cccc0001', created(1), stopped), task('cccc0002', created(1), tripped)]),
      [],
      'not picked as they are',
    );
    t.same(
      pick([
        task('cccc0001', created(1), [...stopped, queued(9, 'interrupted')]),
        task('cccc0002', created(1), [...tripped, queued(9, 'interrupted')]),
      ]),
      ['cccc0001:resume', 'cccc0002:resume'],
      'picked once a person queued them again',
    );
  },
);

t.test('a lease no worker can renew or take over pins its task: named, never taken (issue 27)', async (t) => {
  const working = (id: string) => task(id, created(1), [...backlogQueued(), claimed(3, 'backlog', 'run00001')]);
  const LEASE = 300_000;
  const rows: [string, Lease | undefined, string | null][] = [
    ['eeee0001', lease('eeee0001', NOW + LEASE), null],
    ['eeee0002', lease('eeee0002', NOW + LEASE + SKEW_MS), null],
    [
      'eeee0003',
      lease('eeee0003', NOW + LEASE + SKEW_MS + 1),
      'its lease runs until 2026-06-01T12:06:00.001Z, past any renewal',
    ],
    [
      'eeee0004',
      lease('eeee0004', Date.parse('2999-01-01T00:00:00Z')),
      'its lease runs until 2999-01-01T00:00:00.000Z, past any renewal',
    ],
    ['eeee0005', { oid: 'b'.repeat(40), doc: null }, 'its lease is unreadable'],
    ['eeee0006', lease('ffff0001', NOW - 1), 'its lease names task ffff0001'],
    ['eeee0007', undefined, 'its lease is gone'],
  ];
  for (const [id, l, why] of rows) if (l) t.equal(leaseFault(id, l, NOW, LEASE), why, `${id}: ${why ?? 'sound'}`);
  // A worker renewing by a longer lease than this one's says so in its lease (up to a day): judged by that.
  const longer = (until: number, lease_ms: number): Lease => ({
    oid: 'c'.repeat(40),
    doc: { ...lease('eeee0009', until).doc!, lease_ms },
  });
  t.equal(leaseFault('eeee0009', longer(NOW + 2 * LEASE, 2 * LEASE), NOW, LEASE), null, 'a longer lease, as it says');
  t.match(
    leaseFault('eeee0009', longer(NOW + 10 * 86_400_000, 10 * 86_400_000), NOW, LEASE),
    /past any renewal/,
    'a lease that claims ten days is judged by a day at most',
  );
  const views = rows.map(([id]) => working(id));
  const leases = new Map(rows.filter((r) => r[1]).map(([id, l]) => [id, l!]));
  t.same(
    pinnedTasks(views, leases, NOW, LEASE),
    rows.filter((r) => r[2]).map(([id, , why]) => ({ id, why })),
    'pinned: every faulty lease, and a claim whose lease is gone',
  );
  // An expired copy of each: only a sound lease is ever taken over.
  const later = NOW + LEASE * 10_000;
  t.same(
    candidates(views, leases, later, new Set(), LEASE).map((p) => p.id),
    ['eeee0001', 'eeee0002', 'eeee0003'],
    "the 2999 lease, the unreadable one and another task's are never taken over",
  );
  t.same(
    pinnedTasks([task('eeee0008', created(1), backlogQueued())], new Map(), NOW, LEASE),
    [],
    'a task not working pins nothing',
  );
});
