import t from 'tap';
import { isoWeek, parseBound } from '../../lib/ops/usage.js';
import { humanCost, humanCount, humanSeconds } from '../../lib/output/usage.js';
import { waitedSeconds, beginWaitOn } from '../../lib/agents/substate.js';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runDir } from '../../lib/agents/runs.js';

// lazy usage's pieces: ISO weeks, the date bounds (whole UTC days), the numbers as people read them, and a run's
// recorded waits on subtasks (their union: two at once count once).

t.test('isoWeek: the week of its Thursday, Monday first', async (t) => {
  t.equal(isoWeek(Date.parse('2026-12-03T12:00:00Z')), '2026-W49');
  t.equal(isoWeek(Date.parse('2026-12-28T00:00:00Z')), '2026-W53', '2026 has 53 weeks');
  t.equal(isoWeek(Date.parse('2027-01-03T23:59:59Z')), '2026-W53', 'a Sunday belongs to the week before');
  t.equal(isoWeek(Date.parse('2027-01-04T00:00:00Z')), '2027-W01');
  t.equal(isoWeek(Date.parse('2024-12-30T00:00:00Z')), '2025-W01', "a Monday in December can start next year's week 1");
});

t.test('parseBound: a day is a whole UTC day; an ISO time needs its zone; anything else is refused', async (t) => {
  t.equal(parseBound('since', '2026-12-03', false), Date.parse('2026-12-03T00:00:00Z'));
  t.equal(parseBound('until', '2026-12-03', true), Date.parse('2026-12-04T00:00:00Z') - 1, 'until includes the day');
  t.equal(parseBound('since', '2026-12-03T10:00:00+01:00', false), Date.parse('2026-12-03T09:00:00Z'));
  t.equal(parseBound('since', undefined, false), null);
  for (const bad of ['2026-12-3', '2026-02-30', '2026-12-03T10:00', 'last week'])
    t.throws(() => parseBound('since', bad, false), { code: 'usage', message: /--since/ }, bad);
});

t.test('human numbers: tokens, money (never $0 for unknown), time', async (t) => {
  t.same([950, 1200, 12_345, 1_234_567, 150_000_000, 3.4e9].map(humanCount), [
    '950',
    '1.2k',
    '12.3k',
    '1.2M',
    '150M',
    '3.4B',
  ]);
  t.equal(humanCost({ cost_usd: 0.42, unpriced_turns: 0 }), '$0.42');
  t.equal(humanCost({ cost_usd: 0.0012, unpriced_turns: 0 }), '$0.0012');
  t.equal(humanCost({ cost_usd: 0, unpriced_turns: 0 }), '$0.00', 'a known free turn');
  t.equal(humanCost({ cost_usd: 12.3, unpriced_turns: 3 }), '$12.30 + 3 unpriced');
  t.equal(humanCost({ cost_usd: null, unpriced_turns: 2 }), 'unknown (2 unpriced)');
  t.same([45, 200, 3725].map(humanSeconds), ['45s', '3m 20s', '1h 02m']);
});

t.test("waitedSeconds: a run's ended waits and an open one, overlaps counted once", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'lazy-waited-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(runDir(dir, 'r1'), { recursive: true });
  t.equal(waitedSeconds(dir, 'r1'), 0, 'no wait, no time');
  const at = (s: string) => `2026-12-01T10:${s}.000Z`;
  writeFileSync(
    join(runDir(dir, 'r1'), 'waited.json'),
    JSON.stringify([
      { task: 'a', since: at('00:00'), until: at('01:00') },
      { task: 'b', since: at('00:30'), until: at('01:30') },
      { task: 'c', since: at('03:00'), until: at('03:10') },
    ]),
  );
  t.equal(waitedSeconds(dir, 'r1'), 100, '90 s of two overlapping waits, then 10 s');
  const end = beginWaitOn(dir, 'r1', 'd', Date.parse(at('05:00')));
  t.equal(waitedSeconds(dir, 'r1', Date.parse(at('05:20'))), 120, 'an open wait counts to the moment asked');
  end();
  t.ok(waitedSeconds(dir, 'r1') > 100, 'and once ended it is recorded');
});
