import t from 'tap';
import { sandbox, cli } from '../helpers/env.js';
import { openRepo } from '../../lib/core/repo.js';
import { Store } from '../../lib/store/store.js';
import { applyOutcome } from '../../lib/agents/supervisor/outcome.js';
import type { RunRecord } from '../../lib/agents/runs.js';
import type { Outcome } from '../../lib/agents/supervisor/outcome-types.js';
import { identityOf } from '../../lib/core/proc.js';

t.jobs = 4;

// Recording outcomes against real task refs, through the store's own write protocol.

async function working(sb: ReturnType<typeof sandbox>, run: string) {
  process.env.GIT_AUTHOR_NAME = 'Ada Lovelace';
  process.env.GIT_AUTHOR_EMAIL = 'ada@example.com';
  const id = await cli(sb).create('outcomes', '--accept', 'x');
  const store = new Store(await openRepo(sb.dir), 'human');
  t.teardown(() => store.close());
  await store.mutate(id, 'start', (d) => {
    d.turn({ role: 'human', kind: 'prompt', content: 'go', feedback: 'pending', run });
    d.transition('working', 'start', 'started', { run, host: 'here' });
  });
  return { id, store };
}

const rec = (id: string, run: string): RunRecord => ({
  id: run,
  task: id,
  kind: 'work',
  turn: 1,
  session: 's0000000',
  agent: { name: 'fake', adapter: 'command', command: ['x'] },
  agent_session_id: null,
  worktree: '/nonexistent',
  base: 'main',
  merge_upstream: null,
  consumes: [],
  restore: null,
  created_at: new Date().toISOString(),
  host: 'here',
  launcher: identityOf(process.pid),
  supervisor: null,
});

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
