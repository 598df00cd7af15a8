import t from 'tap';
import { machines, runsPerTask } from '../helpers/fleet.js';

// A worker's turn that hits the agent's usage limit with a named reset: the task goes back to
// the queue with a not-before time (no crash, no worker held), every worker skips it until then,
// list and show say so, and the next worker after the reset resumes it to review.

// The reset's local time, with its date when it falls on another day (a run near midnight).
const UNTIL = /waiting for the usage limit until (\d{4}-\d\d-\d\d )?\d\d:\d\d/;

t.test('a usage limit sends the task back to the queue until its reset; a worker resumes it after', async (t) => {
  // The reset is ten minutes away: the team's clock is moved past it, nobody waits for it.
  const { tm, boxes, clock } = await machines(2, { FAKE_SCENARIO: 'usage-limit-600000,succeed' }, 'lazy-workusage');
  t.teardown(tm.cleanup);
  const [seed, worker] = boxes;
  const id = await seed!.l.create('rate limited work', '--accept', 'done');
  t.equal((await seed!.l('queue', id)).code, 0);
  t.equal((await seed!.l('push')).code, 0);

  const first = await worker!.l.json('work', 'origin', '--drain');
  t.equal(first.run.code, 0, `the worker drains: ${first.run.stderr}`);
  t.same(
    first.value.finished.map((f: { task: string; detail: string }) => [f.task, f.detail]),
    [[id, 'interrupted']],
    'the turn ended at the limit and was released',
  );
  t.equal(first.value.claimed.length, 1, 'claimed once: the waiting task is not picked again by --drain');
  t.same(
    first.value.waiting.map((w: { task: string }) => w.task),
    [id],
    'the drained worker says what it left waiting',
  );
  t.match(first.value.waiting[0].detail, UNTIL);

  t.equal((await seed!.l('pull')).code, 0);
  const shown = await seed!.l.json('show', id);
  const v = shown.value.task ?? shown.value;
  t.equal(v.status, 'interrupted');
  t.equal(v.consecutive_interruptions, 0, 'no crash counted: the breaker is untouched');
  t.equal(v.attention, null, 'nobody is asked to do anything');
  t.ok(v.schedule.queued, 'still queued');
  const notBefore = Date.parse(v.schedule.not_before);
  t.ok(notBefore > clock.now(), 'with a not-before time in the future');
  t.equal(v.changelog.at(-1).trigger, 'usage_limit');
  const list = await seed!.l('list');
  t.match(list.stdout, UNTIL, 'list says what it waits for');

  const early = await worker!.l('work', 'origin', '--drain');
  t.match(early.stdout, /: 0 claimed, 0 finished/, 'a worker skips it before the reset');
  t.match(
    early.stdout,
    new RegExp(`\\n  ${id} waits: queued, priority 0, ${UNTIL.source}`),
    'and its summary says what it left waiting',
  );

  clock.advance(notBefore - clock.now() + 1000);
  const after = await worker!.l.json('work', 'origin', '--drain');
  t.equal(after.run.code, 0, after.run.stderr);
  t.same(after.value.waiting, [], 'nothing left waiting');
  t.same(
    after.value.finished.map((f: { task: string; detail: string }) => [f.task, f.detail]),
    [[id, 'blocked']],
    'resumed after the reset, to review',
  );
  t.equal(runsPerTask([worker!.log]).get(id), 2, 'two agent runs: the limited one and the resumed one');
  t.equal((await seed!.l('pull')).code, 0);
  const done = await seed!.l.json('show', id);
  const d = done.value.task ?? done.value;
  t.equal(d.status, 'blocked');
  t.equal(d.attention.kind, 'review');
  t.equal(d.consecutive_interruptions, 0);
  t.equal(d.schedule.not_before, null, 'the wait is over');
  const resumed = d.changelog.find((c: { trigger: string }) => c.trigger === 'auto_resume');
  t.equal(resumed?.reason, "auto-resume after the agent's usage limit", 'no crash named: "crash 0 of 3" was');
});
