import t from 'tap';
import { standingPr } from '../../lib/model/submission.js';
import type { TurnView } from '../../lib/model/views.js';

// submit's re-run rule: a pull request a submission recorded stands until it is merged or closed upstream or the
// task is reopened; while it stands, submit keeps it and does not run forge.pr_command again.

const URL = 'https://forge.example/o/r/pull/1';
const turn = (clock: number, kind: string, details: Record<string, unknown> | null = null) =>
  ({ clock, kind, role: kind === 'submission' ? 'system' : 'agent', details }) as unknown as TurnView;
const change = (clock: number, trigger: string) => ({ clock, trigger });

t.test('a recorded pull request stands through later turns and failed re-runs', async (t) => {
  const turns = [turn(1, 'submission', { url: URL }), turn(3, 'work'), turn(5, 'submission', { error: 'exit 1' })];
  t.equal(standingPr(turns, [change(2, 'submit'), change(4, 'unblock'), change(6, 'turn_complete')]), URL);
});

t.test('merged, closed upstream or reopened: none stands, and the command runs again', async (t) => {
  for (const trigger of ['pr_closed', 'merge_done', 'reopen']) {
    const turns = [turn(1, 'submission', { url: URL }), turn(4, 'work')];
    t.equal(standingPr(turns, [change(2, 'submit'), change(3, trigger)]), null, trigger);
  }
  t.equal(standingPr([turn(1, 'submission', { error: 'exit 1' })], []), null, 'a submission that found none');
  t.equal(standingPr([turn(1, 'submission', { url: 'not a url' })], []), null, 'nor a malformed one');
  t.equal(standingPr([turn(1, 'work')], []), null, 'never submitted');
  const after = [turn(1, 'submission', { url: URL }), turn(5, 'submission', { url: `${URL}0` })];
  t.equal(standingPr(after, [change(3, 'pr_closed')]), `${URL}0`, 'a pull request opened after the close stands');
});
