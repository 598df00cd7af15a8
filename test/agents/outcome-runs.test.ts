import t from 'tap';
import { sandbox } from '../helpers/env.js';
import { runRecord, workingTask } from '../helpers/outcome-run.js';
import { applyOutcome } from '../../lib/agents/supervisor/outcome/index.js';
import type { Outcome } from '../../lib/agents/supervisor/outcome/types.js';

t.jobs = 4;

// Recording outcomes against real task refs, through the store's own write protocol.

const working = (sb: ReturnType<typeof sandbox>, run: string) => workingTask(sb, run, 'outcomes', (f) => t.teardown(f));
const rec = runRecord;

const done = (id: string, run: string): Outcome => ({
  run,
  task: id,
  kind: 'completed',
  ended_at: new Date().toISOString(),
  attempts: 1,
  summary: 'late but real',
});

t.test('an outcome that arrives after the task was marked interrupted is still processed', async (t) => {
  const sb = sandbox();
  t.teardown(sb.cleanup);
  const { id, store } = await working(sb, 'r0000001');
  await store.mutate(
    id,
    'turn',
    (d) => {
      d.transition('interrupted', 'turn_crashed', 'judged dead', { run: 'r0000001' }, 'system');
    },
    { actor: 'system' },
  );
  const r = { ...rec(id, 'r0000001'), consumes: (await store.view(id)).pending_feedback };
  await store.mutate(id, 'turn', (d) => applyOutcome(d, r, done(id, 'r0000001')), { actor: 'system' });
  const v = await store.view(id);
  t.same(
    v.changelog.slice(-3).map((c) => [c.status, c.trigger]),
    [
      ['interrupted', 'turn_crashed'],
      ['working', 'stale_response'],
      ['blocked', 'turn_complete'],
    ],
    'routed through working, then blocked',
  );
  t.equal(v.turns.at(-1)!.content, 'late but real');
  t.equal(v.turns[0]!.feedback, 'consumed');
  const before = v.tip;
  await store.mutate(id, 'turn', (d) => applyOutcome(d, r, done(id, 'r0000001')), { actor: 'system' });
  t.equal((await store.view(id)).tip, before, 'recording it again writes nothing: exactly once');
});

t.test("an outcome is never taken for another run's", async (t) => {
  const sb = sandbox();
  t.teardown(sb.cleanup);
  const { id, store } = await working(sb, 'r0000002');
  await store.mutate(id, 'turn', (d) => applyOutcome(d, rec(id, 'r0000003'), done(id, 'r0000003')), {
    actor: 'system',
  });
  const v = await store.view(id);
  t.equal(v.status, 'working', "a stale run's outcome does not end the current run's turn");
  t.equal(v.turns.at(-1)!.run, 'r0000003', 'but its turn is kept, labelled with its own run');
  t.equal(v.turns[0]!.feedback, 'pending', 'and it consumes nothing');
});
