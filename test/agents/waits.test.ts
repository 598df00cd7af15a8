import t from 'tap';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { agentSandbox, eventually, runDirOf, supervisorGone } from '../helpers/agent.js';

t.jobs = 4;

// Issue 9: a spent usage window waits for its reset (recorded for show and list), costs
// no retry, and a reset too far away blocks instead.

const waitingOf = async (l: any, id: string) => (await l.json('show', id)).value.waiting;

for (const adapter of ['command', 'claude'] as const) {
  t.test(`${adapter}: a usage limit waits for its reset, says so in show and list, and costs no retry`, async (t) => {
    // retry_transient_max 2: were usage limits counted as transient failures, the third would fail the turn.
    const { sb, l, invocations, scenario, clock } = await agentSandbox({
      adapter,
      settings: { retry_transient_max: '2' },
    });
    t.teardown(sb.cleanup);
    // Ten minutes: the test's clock moves past the first reset once its checks are done; the later ones are near.
    scenario('usage-limit-600000,usage-limit-100,usage-limit-100,succeed');
    const id = await l.create('quota', '--accept', 'done');
    const s = await l.json('start', id);
    const w = await eventually(() => waitingOf(l, id), 20_000, 'the wait');
    t.equal(w.kind, 'usage_limit');
    t.equal(w.run, s.value.run.id);
    t.equal(w.reset_named, true);
    t.ok(Date.parse(w.until) > clock.now(), 'the reset is still ahead');
    t.match(w.reason, /hit your limit/);
    const shown = await l('show', id);
    t.match(shown.stdout, /^waiting: {3}for the agent's usage limit to reset: retries at \d{4}-\d\d-\d\d \d\d:\d\d/m);
    const listed = await l('list');
    t.match(listed.stdout, new RegExp(`${id}\\s+working \\(usage limit: resets \\d{4}-`));
    const row = (await l.json('list')).value.find((r: any) => r.id === id);
    t.same(row.waiting, w, 'list --json carries the wait');
    t.equal(invocations().length, 1, 'nothing is retried before the reset');
    clock.advance(Date.parse(w.until) - clock.now() + 1000);
    const done = await l.json('wait', id, '--timeout', '120');
    t.equal(done.value.task.attention?.kind, 'review');
    t.equal(invocations().length, 4);
    t.ok(invocations()[1]!.n && Date.parse(w.until) <= clock.now(), 'retried after the reset');
    t.same(
      done.value.task.changelog.map((c: any) => c.trigger),
      ['create', 'start', 'turn_complete'],
      'one turn, no failure',
    );
    t.equal(done.value.task.turns.at(-1).details.attempts, 4);
    t.equal((await l.json('show', id)).value.waiting, null, 'no wait once the turn ended');
    t.notOk((await l.json('list', '--all')).value.find((r: any) => r.id === id).waiting);
    const log = readFileSync(join(runDirOf(sb, s.value.run.id), 'output.log'), 'utf8');
    t.match(log, /attempt 1: usage limit \(.*\); waiting until \S+, when it resets; no retry is consumed/);
  });
}

t.test('stop during a usage-limit wait interrupts the turn at once, and the wait is gone', async (t) => {
  const { sb, l, invocations, scenario } = await agentSandbox();
  t.teardown(sb.cleanup);
  scenario('usage-limit-600000,succeed');
  const id = await l.create('long wait', '--accept', 'done');
  const run = (await l.json('start', id)).value.run.id;
  await eventually(() => waitingOf(l, id), 20_000, 'the wait');
  const started = Date.now();
  const s = await l.json('stop', id);
  t.equal(s.run.code, 0);
  // The reset is 10 minutes away: a minute tells the two apart on a loaded machine.
  t.ok(Date.now() - started < 60_000, 'stopped without waiting out the reset');
  const v = (await l.json('show', id)).value;
  t.equal(v.status, 'interrupted');
  t.equal(v.attention.reason, 'stopped by the user');
  t.equal(v.waiting, null);
  // The supervisor sees the stop within one poll of its sleep and removes its record on the way out.
  await supervisorGone(sb, run);
  t.notOk(existsSync(join(sb.dir, '.git', 'lazy', 'waits', `${id}.json`)), 'the wait record is removed');
  t.equal(invocations().length, 1);
});

t.test('a usage limit without a reset time rechecks after usage_limit_recheck_ms', async (t) => {
  const { sb, l, invocations, scenario, clock } = await agentSandbox({
    settings: { usage_limit_recheck_ms: '600000' },
  });
  t.teardown(sb.cleanup);
  scenario('usage-limit-none,succeed');
  const id = await l.create('no reset', '--accept', 'done');
  await l('start', id);
  const w = await eventually(() => waitingOf(l, id), 20_000, 'the wait');
  t.equal(w.reset_named, false);
  t.match((await l('show', id)).stdout, /\(no reset time named: a recheck\)/);
  t.match((await l('list')).stdout, /working \(usage limit: rechecks /);
  t.equal(invocations().length, 1, 'nothing is retried before the recheck');
  t.ok(Date.parse(w.until) - clock.now() > 500_000, 'the recheck is usage_limit_recheck_ms away');
  clock.advance(600_000);
  const done = await l.json('wait', id, '--timeout', '120');
  t.equal(done.value.task.attention?.kind, 'review');
  t.equal(invocations().length, 2);
});

t.test('a usage limit that resets far away blocks with failure attention instead of waiting', async (t) => {
  const { sb, l, invocations, scenario } = await agentSandbox();
  t.teardown(sb.cleanup);
  scenario(`usage-limit-${8 * 3_600_000},succeed`);
  const id = await l.create('monthly cap', '--accept', 'done');
  await l('start', id);
  const w = await l.json('wait', id, '--timeout', '30');
  t.equal(w.value.task.status, 'blocked');
  t.equal(w.value.task.attention.kind, 'failure');
  t.match(
    w.value.task.attention.reason,
    /^usage_limit: You've hit your limit \(it resets at \S+, more than 360 min away \(usage_limit_max_wait_ms\): not waited on\)/,
  );
  t.equal(w.value.task.changelog.at(-1).details.failure_class, 'usage_limit');
  await l('list');
  t.equal(invocations().length, 1, 'not retried, not resumed');
  t.equal(
    (await l.json('inbox')).value.some((i: any) => i.id === id),
    true,
    'in the inbox',
  );
});
