import t from 'tap';
import { change, docs } from '../helpers/docs.js';
import { foldTask, type TaskView } from '../../lib/model/fold.js';
import type { StatusEntry } from '../../lib/model/docs.js';
import { heldFromWorkers, resumable, startable } from '../../lib/model/pickup.js';
import { queueLabel } from '../../lib/model/schedule.js';
import * as fleet from '../../lib/fleet/pick.js';

// One rule for what a worker may pick (lib/model/pickup.ts): the fold's schedule.held, which list, show and
// `list --queued` read, says why no worker will take a queued task, and agrees with the worker's own pick.

const NOW = Date.parse('2026-06-01T12:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString();

function task(changelog: StatusEntry[], acceptance = ['done'], more: Parameters<typeof docs>[0] = {}): TaskView {
  const d = docs({ id: 'eeee0001', changelog, ...more });
  return foldTask({ ...d, task: { ...d.task, acceptance } });
}
const queued = (clock: number, from: 'backlog' | 'interrupted') =>
  change(clock, from, from, 'queue', { actor: 'human' });
const backlogQueued = () => [change(1, null, 'backlog', 'create'), queued(2, 'backlog')];
const claimed = (clock: number, from: 'backlog' | 'interrupted', run: string) =>
  change(clock, from, 'working', from === 'backlog' ? 'start' : 'auto_resume', {
    actor: 'system',
    run,
    host: 'box-a',
    details: { claim: { host: 'box-a', lease_until: iso(NOW + 60_000) } },
  });
const crashed = (clock: number, run: string, details?: StatusEntry['details']) =>
  change(clock, 'working', 'interrupted', 'turn_crashed', { actor: 'system', run, host: 'box-a', details });
const thrice = [
  ...backlogQueued(),
  claimed(3, 'backlog', 'r1'),
  crashed(4, 'r1'),
  claimed(5, 'interrupted', 'r2'),
  crashed(6, 'r2'),
  claimed(7, 'interrupted', 'r3'),
  crashed(8, 'r3'),
];

const cases: [string, TaskView, RegExp | null][] = [
  ['a queued backlog task', task(backlogQueued()), null],
  ['one without a criterion', task(backlogQueued(), []), /^no acceptance criterion: no worker starts it$/],
  ['a crash under the breaker', task([...backlogQueued(), claimed(3, 'backlog', 'r1'), crashed(4, 'r1')]), null],
  [
    'a crash of a task whose criterion was edited away (issue 28)',
    task([...backlogQueued(), claimed(3, 'backlog', 'r1'), crashed(4, 'r1')], []),
    /^no acceptance criterion: no worker resumes it$/,
  ],
  ['three crashes in a row', task(thrice), /^parked by the crash breaker: 3 crashes in a row$/],
  ['the breaker, paused too', task([...thrice, change(9, 'interrupted', 'interrupted', 'pause')]), /crash breaker/],
  ['the breaker, queued again by a person', task([...thrice, queued(9, 'interrupted')]), null],
  [
    'a stopped fleet turn',
    task([...backlogQueued(), claimed(3, 'backlog', 'r1'), change(4, 'working', 'interrupted', 'stop')]),
    /^stopped by the user: no worker resumes it$/,
  ],
  [
    'a crash held for a person',
    task([...backlogQueued(), claimed(3, 'backlog', 'r1'), crashed(4, 'r1', { held: 'lost' })]),
    /^a crash held for a person/,
  ],
  ['a claimed (working) task', task([...backlogQueued(), claimed(3, 'backlog', 'r1')]), null],
  ['a task never queued', task([change(1, null, 'backlog', 'create')]), null],
];

t.test('schedule.held: why no worker will pick a queued task, and only then', async (t) => {
  for (const [what, v, held] of cases) {
    if (held) t.match(v.schedule.held, held, what);
    else t.equal(v.schedule.held, null, what);
    t.equal(v.schedule.held, heldFromWorkers(v), `${what}: the fold carries the rule`);
  }
});

t.test("the listing's label says why instead of 'queued'", async (t) => {
  const v = task(thrice);
  t.equal(v.schedule.queued, true, 'still in the queue (unqueue, or a person’s queue, takes it on)');
  t.equal(queueLabel(v.schedule, NOW), 'parked by the crash breaker: 3 crashes in a row');
  const again = task([...thrice, queued(9, 'interrupted')]);
  t.equal(queueLabel(again.schedule, NOW), 'queued, priority 0');
});

t.test("held agrees with what the worker's pick takes, whatever the time", async (t) => {
  for (const [what, v] of cases) {
    const picks = startable(v, NOW) || resumable(v, NOW);
    t.equal(picks, fleet.startable(v, NOW) || fleet.resumable(v, NOW), `${what}: the same as lib/fleet/pick.ts`);
    if (v.schedule.queued && !v.schedule.paused && (v.status === 'backlog' || v.status === 'interrupted'))
      t.equal(picks, v.schedule.held === null, `${what}: picked exactly when nothing holds it`);
  }
});
