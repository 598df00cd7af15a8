import t from 'tap';
import { machines, queueTasks, runsPerTask } from '../helpers/fleet.js';

// A fleet task the crash breaker parked is still in the queue (a person's `lazy queue` sends it back), but no
// worker will pick it: list, `list --queued` and show say so, and why, from the rule the worker's pick reads
// (lib/model/pickup.ts), instead of presenting it as queued.

t.test('a fleet task parked by the crash breaker is not listed as queued: the listing says why', async (t) => {
  const { tm, boxes } = await machines(1, { FAKE_SCENARIO: 'crash' }, 'lazy-held');
  t.teardown(tm.cleanup);
  const w = boxes[0]!;
  const id = await w.l.create('always crashes', '--accept', 'done');
  const other = await w.l.create('waits its turn', '--accept', 'done');
  await queueTasks(w.sb, [id]);
  t.equal((await w.l('push')).code, 0);
  const r = await w.l.spawn('work', 'origin', '--drain', '--json');
  t.equal(r.code, 0, r.stderr);
  t.equal(runsPerTask([w.log!]).get(id), 3, 'three crashed turns, then the breaker');
  await queueTasks(w.sb, [other]); // queued after the drain: a worker would take it
  const breaker = 'parked by the crash breaker: 3 crashes in a row';

  const list = await w.l('list');
  t.match(list.stdout, new RegExp(`^${id}\\tinterrupted \\(${breaker}\\)\\t`, 'm'), 'the status column says why');
  t.match(list.stdout, new RegExp(`^${other}\\tbacklog \\(queued, priority 0\\)\\t`, 'm'));
  const rows = (await w.l.json('list')).value as { id: string; schedule: { queued: boolean; held: string | null } }[];
  t.match(
    rows.find((x) => x.id === id)?.schedule,
    { queued: true, held: breaker },
    'JSON: still in the queue, held from the workers, and why',
  );
  t.equal(rows.find((x) => x.id === other)?.schedule.held, null);
  const q = (await w.l.json('list', '--queued')).value as { id: string }[];
  t.same(
    q.map((x) => x.id),
    [other],
    'list --queued: only what a worker will pick',
  );
  const queuedText = await w.l('list', '--queued');
  t.notMatch(queuedText.stdout, new RegExp(id), 'nor in its text');
  const show = await w.l('show', id);
  t.match(show.stdout, new RegExp(`^queue: {5}${breaker}$`, 'm'), 'show names it on its queue line');
  t.equal((await w.l.json('show', id)).value.schedule.held, breaker);

  // A person's queue is their say-so: the workers take it again, and the listing says queued.
  t.equal((await w.l('queue', id)).code, 0);
  const again = await w.l('list', '--queued');
  t.match(again.stdout, new RegExp(`^${id}\\tinterrupted \\(queued, priority 0\\)\\t`, 'm'));
});
