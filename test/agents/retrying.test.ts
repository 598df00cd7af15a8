import t from 'tap';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { agentSandbox, eventually, runDirOf } from '../helpers/agent.js';
import { runDir } from '../../lib/agents/runs.js';
import { retryReason, substateLabel, substateOf, writeRetrying, type Substate } from '../../lib/agents/substate.js';

t.jobs = 3;

// Issue 28, item 8: a retry in progress is the working task's substate everywhere (list, show,
// JSON): the supervisor's sleep before its next attempt, and the agent CLI's own retries.

const substate = async (l: any, id: string): Promise<Substate | null> => (await l.json('show', id)).value.substate;
const span = (s: any) => Date.parse(s.until) - Date.parse(s.at);
// A failed check must not leave a turn sleeping on the paused clock: stop it (refused, harmlessly, once it ended).
const ending = (l: any, id: string, sb: { cleanup: () => Promise<void> }) => async () => {
  await l('stop', id);
  await sb.cleanup();
};

t.test('a failed attempt waiting for its retry: list, show and JSON say so until the next attempt', async (t) => {
  const { sb, l, invocations, scenario, clock } = await agentSandbox({ settings: { retry_base_ms: '20000' } });
  scenario('rate-limit,rate-limit,succeed');
  const id = await l.create('flaky api', '--accept', 'done');
  t.teardown(ending(l, id, sb));
  // Time stands still but for advance(): "in 20 s" reads exactly.
  clock.pause();
  const run = (await l.json('start', id)).value.run.id;
  const s1: any = await eventually(() => substate(l, id), 20_000, 'the first retry');
  t.match(s1, { kind: 'retrying', reason: 'rate limit', attempt: 2 });
  t.equal(span(s1), 20_000, 'until: the retry ladder’s first delay');
  t.match((await l('show', id)).stdout, /^status: +working \(retrying: rate limit, attempt 2 in 20 s\)/m);
  t.match((await l('list')).stdout, new RegExp(`${id}\\s+working \\(retrying: rate limit, attempt 2 in 20 s\\)`));
  t.same((await l.json('list')).value.find((r: any) => r.id === id).substate, s1, 'list --json carries it');
  t.equal(invocations().length, 1);

  clock.advance(20_000);
  const s2: any = await eventually(
    async () => ((await substate(l, id)) as any)?.attempt === 3 && substate(l, id),
    20_000,
    'the second retry',
  );
  t.equal(invocations().length, 2, 'the next attempt ran');
  t.equal(span(s2), 40_000, 'the ladder’s second delay');
  t.match((await l('list')).stdout, /working \(retrying: rate limit, attempt 3 in 40 s\)/);

  clock.advance(40_000);
  const done = (await l.json('wait', id, '--timeout', '120')).value.task;
  t.equal(done.status, 'blocked');
  t.equal(invocations().length, 3);
  t.equal(await substate(l, id), null, 'no retry once the turn ended');
  t.notOk(existsSync(join(runDirOf(sb, run), 'retrying.json')), 'the record is gone');
});

t.test("claude's own api_retry: the substate while it retries, cleared by its next progress", async (t) => {
  const { sb, l, scenario, clock, gate } = await agentSandbox({ adapter: 'claude' });
  const open = gate();
  scenario('api-retry');
  const id = await l.create('overloaded api', '--accept', 'done');
  t.teardown(ending(l, id, sb));
  clock.pause();
  const run = (await l.json('start', id)).value.run.id;
  const s: any = await eventually(() => substate(l, id), 20_000, 'the in-stream retry');
  t.match(s, { kind: 'retrying', reason: 'overloaded', attempt: 2 });
  t.equal(span(s), 20_000, 'until: the delay claude named');
  t.match((await l('list')).stdout, new RegExp(`${id}\\s+working \\(retrying: overloaded, attempt 2 in 20 s\\)`));
  open();
  await eventually(
    async () => {
      const v = (await l.json('show', id)).value;
      return v.status === 'working' && v.substate === null;
    },
    20_000,
    'the retry to end while the turn goes on',
  );
  writeFileSync(join(sb.home, 'gate-1.2'), '');
  t.equal((await l.json('wait', id, '--timeout', '120')).value.task.status, 'blocked');
  t.notOk(existsSync(join(runDirOf(sb, run), 'retrying.json')));
});

t.test('a retry record is believed only for a working task’s current run', async (t) => {
  const lazyDir = mkdtempSync(join(tmpdir(), 'lazy-retrying-'));
  t.teardown(() => rmSync(lazyDir, { recursive: true, force: true }));
  mkdirSync(runDir(lazyDir, 'runold01'), { recursive: true });
  const rec = { reason: 'rate limit', attempt: 2, at: '2026-01-01T00:00:00.000Z', until: '2026-01-01T00:00:20.000Z' };
  writeRetrying(lazyDir, 'runold01', rec);
  t.same(substateOf(lazyDir, { status: 'working', current_run: 'runold01' }), { kind: 'retrying', ...rec });
  t.equal(substateOf(lazyDir, { status: 'working', current_run: 'runnew02' }), null, 'another run’s record');
  t.equal(substateOf(lazyDir, { status: 'interrupted', current_run: 'runold01' }), null, 'a task no longer working');
  const at = Date.parse(rec.at);
  t.equal(substateLabel({ kind: 'retrying', ...rec }, at), 'retrying: rate limit, attempt 2 in 20 s');
  t.equal(substateLabel({ kind: 'retrying', ...rec }, at + 25_000), 'retrying: rate limit, attempt 2 in 0 s');
  t.equal(substateLabel({ kind: 'retrying', ...rec, until: null }, at), 'retrying: rate limit, attempt 2');
  t.same(
    [
      retryReason('API Error: Request rejected (429)', 'transient_overload'),
      retryReason('server busy', 'transient_overload'),
      retryReason('API overloaded (529)'),
      retryReason('ECONNRESET', 'transient_network'),
      retryReason('stream error'),
    ],
    ['rate limit', 'overloaded', 'overloaded', 'network error', 'stream error'],
  );
});
