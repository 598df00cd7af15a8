import t from 'tap';
import { change, docs } from '../helpers/docs.js';
import { foldTask, lastChange, type TaskView } from '../../lib/model/fold.js';
import type { StatusEntry } from '../../lib/model/docs.js';
import type { Status } from '../../lib/model/status.js';
import { heldFromWorkers, resumable } from '../../lib/model/pickup.js';
import { unattendedResume } from '../../lib/model/resume.js';
import { lastSettled, leftBefore } from '../../lib/model/rounds.js';
import { availableActions } from '../../lib/model/table.js';

// A follow-up or a repair is status-neutral: the task comes back with the same schedule (queued, paused, a usage
// limit's reset), and every reader of what last happened to it (the resume rule, the worker's pick, the queue
// guard) reads past the round (lastSettled, lib/model/rounds.ts).

const NOW = Date.UTC(2026, 0, 1, 1, 0, 0);

function task(changelog: StatusEntry[], acceptance = ['done']): TaskView {
  const d = docs({ id: 'eeee0002', changelog });
  return foldTask({ ...d, task: { ...d.task, acceptance } });
}
const n = (clock: number, s: Status, trigger: 'queue' | 'pause') => change(clock, s, s, trigger);
const started = (clock: number, run: string) => change(clock, 'backlog', 'working', 'start', { run, host: 'h' });
/** A repair of the task as it stands at `clock` (from `from`), and its end carrying `details` back. */
function repaired(clock: number, from: Status, details?: StatusEntry['details']): StatusEntry[] {
  return [
    change(clock, from, 'working', 'repair', { run: `rep-${clock}`, host: 'h' }),
    change(clock + 1, 'working', from, 'round_end', { actor: 'system', run: `rep-${clock}`, details }),
  ];
}
const base = [change(1, null, 'backlog', 'create'), started(2, 'r1')];

t.test('a repair of a stopped, queued task keeps it queued, and a worker may pick it', async (t) => {
  const stop = change(3, 'working', 'interrupted', 'stop', { run: 'r1', details: { user_stopped: true } });
  const before = task([...base, stop, n(4, 'interrupted', 'queue')]);
  t.ok(before.schedule.queued);
  t.equal(heldFromWorkers(before), null, 'queued by a person after the stop: a worker resumes it');
  const after = task([...base, stop, n(4, 'interrupted', 'queue'), ...repaired(5, 'interrupted', stop.details)]);
  t.equal(lastChange(after)?.trigger, 'round_end', 'the last move is the round’s end');
  t.equal(lastSettled(after)?.id, stop.id, 'the last settled move is the stop');
  t.same(after.schedule, before.schedule, 'the schedule as before');
  t.equal(heldFromWorkers(after), null, 'no "interrupted by round_end"');
  t.equal(unattendedResume(after)?.id, stop.id, 'resumed as the stop it was');
  t.ok(resumable(after, NOW), 'a worker may pick it now');
  t.equal(leftBefore(after.changelog, 'rep-5')?.id, stop.id, 'leftBefore reads the same truth');
});

t.test('a paused task stays paused; a usage-limit wait keeps its not_before', async (t) => {
  const stop = change(3, 'working', 'interrupted', 'stop', { run: 'r1' });
  const paused = task([
    ...base,
    stop,
    n(4, 'interrupted', 'queue'),
    n(5, 'interrupted', 'pause'),
    ...repaired(6, 'interrupted'),
  ]);
  t.match(paused.schedule, { queued: true, paused: true });
  t.notOk(resumable(paused, NOW), 'paused: no worker picks it');
  const until = new Date(NOW + 3_600_000).toISOString();
  const claim = { claim: { host: 'h', lease_until: until } };
  const worker = change(3, 'backlog', 'working', 'start', { actor: 'system', run: 'r1', host: 'h', details: claim });
  const limit = change(4, 'working', 'interrupted', 'usage_limit', { run: 'r1', details: { not_before: until } });
  const fleet = [change(1, null, 'backlog', 'create'), n(2, 'backlog', 'queue'), worker, limit];
  const v = task([...fleet, ...repaired(5, 'interrupted', limit.details)]);
  t.equal(v.schedule.not_before, until, 'the reset still holds every worker off');
  t.ok(v.schedule.queued);
  t.notOk(resumable(v, NOW), 'not before the reset');
  t.ok(resumable(v, NOW + 3_600_001), 'after it');
  t.equal(unattendedResume(v)?.trigger, 'usage_limit', 'resumed as a usage limit');
});

t.test('the crash breaker and a held crash are unaffected by a repair', async (t) => {
  const crash = (c: number, run: string, details?: StatusEntry['details']) =>
    change(c, 'working', 'interrupted', 'turn_crashed', { actor: 'system', run, details });
  const resumed = (c: number, run: string) => change(c, 'interrupted', 'working', 'auto_resume', { run });
  const thrice = [...base, crash(3, 'r1'), resumed(4, 'r2'), crash(5, 'r2'), resumed(6, 'r3'), crash(7, 'r3')];
  const v = task([...thrice, ...repaired(8, 'interrupted')]);
  t.equal(v.consecutive_interruptions, 3);
  t.equal(unattendedResume(v), null, 'the breaker holds it');
  t.match(v.attention, { kind: 'interrupted', reason: /circuit breaker/ });
  const held = crash(3, 'r1', { held: 'the run was lost: lazy doctor ended it' });
  const h = task([...base, held, ...repaired(4, 'interrupted', held.details)]);
  t.notOk(h.available_actions.includes('queue'), 'the queue guard still refuses a held crash');
  t.same(availableActions(h), h.available_actions);
  t.equal(unattendedResume(h), null, 'never resumed with nobody asked');
  const one = task([...base, crash(3, 'r1'), ...repaired(4, 'interrupted')]);
  t.equal(unattendedResume(one)?.trigger, 'turn_crashed', 'one crash under the breaker: resumed as before');
});
