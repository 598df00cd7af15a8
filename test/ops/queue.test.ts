import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli, gitSync, sandbox, type Sandbox } from '../helpers/env.js';
import { agentSandbox, activeMarkers, eventually, crashSettled } from '../helpers/agent.js';
import { team } from '../helpers/team.js';
import { concurrent } from '../helpers/concurrent.js';
import { withEnv } from '../../lib/core/env.js';
import { openRepo } from '../../lib/core/repo.js';
import { Store } from '../../lib/store/store.js';

// lazy queue, unqueue, pause and unpause (lib/ops/queue.ts), and what list, show and watch say
// of the queue. Each command writes one status-neutral changelog entry per task.

const test = concurrent(4);

const tipOf = (sb: Sandbox, id: string) => gitSync(sb.dir, sb.env, ['rev-parse', `refs/lazy/tasks/${id}`]).trim();
const triggers = (v: any) => v.changelog.map((c: any) => `${c.from ?? '∅'}>${c.status}:${c.trigger}`);

test('queue --priority, unqueue, pause, unpause: one status-neutral entry each, JSON and text', async (t) => {
  const sb = sandbox();
  t.teardown(sb.cleanup);
  const l = cli(sb);
  const a = await l.create('first', '--accept', 'done');
  const b = await l.create('second', '--accept', 'done');
  const q = await l.json('queue', a, b, '--priority', '3');
  t.equal(q.run.code, 0);
  t.ok(Array.isArray(q.value), '--json: one {task} row per task named, a list');
  t.same(
    q.value.map(({ task: v }: any) => [v.id, v.status, v.schedule.queued, v.schedule.priority]),
    [
      [a, 'backlog', true, 3],
      [b, 'backlog', true, 3],
    ],
  );
  const entry = q.value[0].task.changelog.at(-1);
  t.match(entry, { from: 'backlog', status: 'backlog', trigger: 'queue', actor: 'human', details: { priority: 3 } });
  t.same(q.value[0].task.available_actions, ['start', 'queue', 'unqueue', 'pause', 'close', 'comment', 'edit']);
  t.match(
    gitSync(sb.dir, sb.env, ['log', '-1', '--format=%B', `refs/lazy/tasks/${a}`]),
    /Lazy-Op: queue\n[\s\S]*Lazy-Status: backlog -> backlog/,
    'one commit, its trailers say backlog -> backlog',
  );

  const p = await l('pause', a);
  t.equal(p.code, 0);
  t.equal(p.stdout, `${a} paused: backlog (queued, priority 3, paused)\n`, 'text: what it did, where it stands');
  const shown = await l('show', a);
  t.match(shown.stdout, /^queue: {5}queued, priority 3, paused$/m, 'show prints the queue line');
  t.match(shown.stdout, /^status: {4}backlog$/m, 'the status is untouched');
  t.equal((await l.json('unpause', a)).value[0].task.schedule.paused, false);
  const u = await l.json('unqueue', b);
  t.same(u.value[0].task.schedule, {
    queued: false,
    priority: 3,
    paused: false,
    not_before: null,
    claim: null,
    held: null,
  });
  t.notMatch((await l('show', b)).stdout, /^queue:/m, 'an unqueued task has no queue line');
  t.same(triggers((await l.json('show', a)).value), [
    '∅>backlog:create',
    'backlog>backlog:queue',
    'backlog>backlog:pause',
    'backlog>backlog:unpause',
  ]);
  const again = await l.json('queue', b);
  t.equal(again.value[0].task.schedule.priority, 3, 'a re-queue without --priority keeps the last one');
});

test('guards and bad input: exit 4 through assertAllowed, exit 2 for a priority that is no integer', async (t) => {
  const sb = sandbox();
  t.teardown(sb.cleanup);
  const l = cli(sb);
  const id = await l.create('guarded', '--accept', 'done');
  const tip = tipOf(sb, id);
  for (const [action, guard, why] of [
    ['unqueue', 'queued', /it is not queued/],
    ['pause', 'not_paused', /only a queued or interrupted task can be paused/],
    ['unpause', 'paused', /it is not paused/],
  ] as const) {
    const r = await l.json(action, id);
    t.equal(r.run.code, 4, `${action} of a task that is not queued: exit 4`);
    t.equal(r.value.error.code, 'action_not_allowed');
    t.match(r.value.error.message, why);
    t.match(r.value.error.details, {
      status: 'backlog',
      guard,
      available_actions: ['start', 'queue', 'close', 'comment', 'edit'],
    });
  }
  const vague = await l.create('no criterion yet');
  const refused = await l.json('queue', vague);
  t.equal(refused.run.code, 4, 'a task with no acceptance criterion is not queued: no worker would start it');
  t.match(refused.value.error.message, /acceptance criterion to judge its turn by; add one with lazy edit --accept/);
  t.match(refused.value.error.details, { guard: 'runnable', available_actions: ['start', 'close', 'comment', 'edit'] });
  t.equal((await l('edit', vague, '--accept', 'it is done')).code, 0);
  t.equal((await l.json('queue', vague)).value[0].task.schedule.queued, true, 'queued once it has one');
  for (const bad of ['1.5', 'high', '', '9007199254740993', '0x10']) {
    const r = await l.json('queue', id, '--priority', bad);
    t.equal(r.run.code, 2, `--priority '${bad}': usage`);
    t.match(r.value.error.message, /--priority must be an integer/);
  }
  t.equal((await l('unqueue', id, '--priority', '2')).code, 2, '--priority belongs to queue only');
  t.equal(tipOf(sb, id), tip, 'nothing was written by any refusal');
  t.equal((await l.json('queue', id, '--priority', '-4')).value[0].task.schedule.priority, -4, 'negative is fine');
  await l('close', id);
  const closed = await l.json('queue', id);
  t.equal(closed.run.code, 4, 'a closed task cannot be queued');
  t.same(closed.value.error.details.available_actions, ['reopen']);
  t.equal((await l.json('show', id)).value.schedule.queued, false, 'close took it out of the queue');
});

test('several ids: each is done; the first failure is named with what was done, its exit code kept', async (t) => {
  const sb = sandbox();
  t.teardown(sb.cleanup);
  const l = cli(sb);
  const a = await l.create('a', '--accept', 'done');
  const b = await l.create('b', '--accept', 'done');
  const c = await l.create('c', '--accept', 'done');
  await l('queue', b);
  const r = await l.json('pause', a, b, 'zzzz', c);
  t.equal(r.run.code, 4, "the first failure's exit code (a is not queued: 4), though zzzz is 3");
  t.match(r.value.error, {
    code: 'action_not_allowed',
    message: new RegExp(`^${a}: cannot pause .* \\(paused anyway: ${b}\\)$`),
    details: { task: a, updated: [b] },
  });
  t.same(
    r.value.error.details.failed.map((f: any) => [f.task, f.code]),
    [
      [a, 'action_not_allowed'],
      ['zzzz', 'task_not_found'],
      [c, 'action_not_allowed'],
    ],
  );
  t.match(r.run.stderr, /warning: zzzz: no task matches/, 'the other failures are warned');
  t.equal((await l.json('show', b)).value.schedule.paused, true, 'b, between two failures, was paused');
  const missing = await l('queue', 'zzzz', a);
  t.equal(missing.code, 3, 'a missing id exits 3');
  t.match(missing.stderr, new RegExp(`zzzz: no task matches 'zzzz' \\(queued anyway: ${a}\\)`));
  t.equal((await l.json('show', a)).value.schedule.queued, true);
  t.equal((await l('queue', a.slice(0, 4))).code, 0, 'a unique prefix names a task');
  t.equal((await l('queue', 'ab')).code, 2, 'a prefix under 4 characters is a usage error');
});

/** Writes a fleet history the worker and the usage-limit path write: a claim, then a usage-limit wait. */
async function usageLimited(sb: Sandbox, id: string, notBefore: string): Promise<void> {
  await withEnv(sb.env, async () => {
    const store = new Store(await openRepo(sb.dir), 'system');
    try {
      await store.mutate(id, 'work', (d) => {
        const claim = { host: 'ci-7', lease_until: new Date(Date.now() + 300_000).toISOString() };
        d.transition('working', 'start', 'claimed by ci-7', { host: 'ci-7', run: 'rnc7abcd', details: { claim } });
        d.transition('interrupted', 'usage_limit', `usage limit of fake: waiting until ${notBefore}`, {
          host: 'ci-7',
          run: 'rnc7abcd',
          details: { not_before: notBefore },
        });
      });
    } finally {
      store.close();
    }
  });
}

test('list: --queued in queue order, --paused, combined filters, labels and the index', async (t) => {
  const sb = sandbox();
  t.teardown(sb.cleanup);
  const l = cli(sb);
  const low = await l.create('low', '--tag', 'x', '--accept', 'done');
  const high = await l.create('high', '--accept', 'done');
  const mid = await l.create('mid', '--tag', 'x', '--accept', 'done');
  const plain = await l.create('never queued', '--tag', 'x', '--accept', 'done');
  const waiting = await l.create('hit the usage limit', '--accept', 'done');
  await l('queue', low, '--priority', '-1');
  await l('queue', mid, '--priority', '5');
  await l('queue', high, '--priority', '5');
  await l('queue', waiting, '--priority', '1');
  await l('pause', high);
  const until = new Date(Date.now() + 3 * 3600_000);
  await usageLimited(sb, waiting, until.toISOString());

  const queued = await l.json('list', '--queued');
  t.same(
    queued.value.map((r: any) => r.id),
    [high, mid, waiting, low],
    'priority first (5, 5, 1, -1), then oldest: the order a worker picks in',
  );
  t.same(queued.value[0].schedule, {
    queued: true,
    priority: 5,
    paused: true,
    not_before: null,
    claim: null,
    held: null,
  });
  t.same(
    (await l.json('list')).value.map((r: any) => r.id),
    [low, high, mid, plain, waiting],
    'without --queued, creation order',
  );
  t.same(
    (await l.json('list', '--paused')).value.map((r: any) => r.id),
    [high],
  );
  t.same(
    (await l.json('list', '--queued', '--tag', 'x')).value.map((r: any) => r.id),
    [mid, low],
    'with --tag',
  );
  t.same(
    (await l.json('list', '--queued', '--status', 'interrupted')).value.map((r: any) => r.id),
    [waiting],
    'with --status',
  );
  t.same((await l.json('list', '--paused', '--tag', 'x')).value, [], 'nothing paused tagged x: []');
  const row = queued.value.find((r: any) => r.id === waiting);
  t.equal(row.status, 'interrupted');
  t.equal(row.schedule.not_before, until.toISOString(), 'the wait travels in list --json');
  t.same(row.schedule.claim, null, 'the claim ended with the turn');

  const hhmm = `${String(until.getHours()).padStart(2, '0')}:${String(until.getMinutes()).padStart(2, '0')}`;
  const today = until.toDateString() === new Date().toDateString();
  const when = today
    ? hhmm
    : `${until.getFullYear()}-${String(until.getMonth() + 1).padStart(2, '0')}-${String(until.getDate()).padStart(2, '0')} ${hhmm}`;
  const text = (await l('list', '--queued')).stdout;
  t.match(text, new RegExp(`${high}\\s+backlog \\(queued, priority 5, paused\\)`));
  t.match(text, new RegExp(`${low}\\s+backlog \\(queued, priority -1\\)`));
  const label = `interrupted \\(queued, priority 1, waiting for the usage limit until ${when}\\)`;
  t.match(text, new RegExp(`${waiting}\\s+${label}`), 'list says until when');
  t.match(
    (await l('show', waiting)).stdout,
    new RegExp(`^queue: +queued, priority 1, waiting for the usage limit until ${when}$`, 'm'),
  );
  t.match(
    (await l('list', '--tree')).stdout,
    new RegExp(`${high}  backlog \\(queued, priority 5, paused\\) high`),
    'so does --tree',
  );
  const watch = await l('watch', '--once');
  t.match(watch.stdout, new RegExp(`${waiting}\\s+${label}`), 'watch says it too');
  const wj = (await l.json('watch')).value.find((r: any) => r.id === waiting);
  t.equal(wj.schedule.not_before, until.toISOString(), 'watch --json carries the schedule');

  const [first, ...lines] = readFileSync(join(sb.dir, '.git', 'lazy', 'index.ndjson'), 'utf8').split('\n');
  const index = JSON.parse(first!);
  t.match(index.version, /^15\./, 'the index format carrying the schedule (and why it is held) has its own version');
  // A cache is rebuildable: one from before the schedule was carried (or any other version) is ignored.
  const old = [JSON.stringify({ ...index, version: '5.old' }), ...lines].join('\n');
  writeFileSync(join(sb.dir, '.git', 'lazy', 'index.ndjson'), old);
  t.same(
    (await l.json('list', '--paused')).value.map((r: any) => r.id),
    [high],
    'rebuilt from the refs',
  );
});

test('queue entries travel with sync and merge like any change', async (t) => {
  const tm = team(2, 'lazy-queue');
  t.teardown(tm.cleanup);
  const [a, b] = tm.clones.map((c) => cli(c));
  const x = await a!.create('shared x', '--accept', 'done');
  const y = await a!.create('shared y', '--accept', 'done');
  t.equal((await a!('push')).code, 0);
  t.equal((await b!('pull')).code, 0);
  // Concurrent: A queues x at 5 and y at 1; B queues y at 9, then pauses y, and comments on x.
  await a!('queue', x, '--priority', '5');
  await a!('queue', y, '--priority', '1');
  await b!('queue', y, '--priority', '9');
  await b!('pause', y);
  await b!('comment', x, '-m', 'meanwhile');
  t.equal((await a!('push')).code, 0);
  const synced = await b!.json('sync');
  t.equal(synced.run.code, 0, 'B merges A and pushes the merge');
  t.equal((await a!('pull')).code, 0);
  for (const [name, l] of [
    ['A', a!],
    ['B', b!],
  ] as const) {
    const vx = (await l.json('show', x)).value;
    t.same(
      vx.schedule,
      { queued: true, priority: 5, paused: false, not_before: null, claim: null, held: null },
      `${name}: x`,
    );
    t.equal(vx.turns.at(-1).content, 'meanwhile', `${name}: x keeps B's comment too`);
    t.same(vx.concurrent_changes, [], `${name}: nothing set aside`);
    const vy = (await l.json('show', y)).value;
    t.equal(vy.schedule.paused, true, `${name}: y is paused (B's pause)`);
    t.equal(vy.schedule.queued, true, `${name}: y is queued`);
    t.equal(vy.status, 'backlog');
  }
  const ya = (await a!.json('show', y)).value.schedule;
  const yb = (await b!.json('show', y)).value.schedule;
  t.same(ya, yb, "both clones agree on y's priority (the later Lamport clock wins)");
  t.same(
    (await a!.json('list', '--queued')).value.map((r: any) => r.id),
    (await b!.json('list', '--queued')).value.map((r: any) => r.id),
    'and on the queue order',
  );
});

test('a paused crash is not auto-resumed by the next command; unpause resumes it', async (t) => {
  const { sb, l, invocations, scenario } = await agentSandbox();
  t.teardown(sb.cleanup);
  scenario('crash,succeed');
  const id = await l.create('crash, then hold', '--accept', 'done');
  const s = await l.json('start', id);
  await crashSettled(sb, s.value.run.id);
  t.same(activeMarkers(sb.dir), [`${id}.json`], 'the crash is recorded and waits for the next command to resume it');

  const p = await l.json('pause', id);
  t.equal(p.run.code, 0, `pause lands first (${p.run.stderr})`);
  t.equal(p.value[0].task.status, 'interrupted');
  t.equal(p.value[0].task.schedule.paused, true);
  t.same(activeMarkers(sb.dir), [], 'its reconcile ran after the pause and did not resume it');
  t.equal((await l('list')).code, 0);
  const held = (await l.json('show', id)).value;
  t.equal(held.status, 'interrupted', 'the next command does not auto-resume it');
  t.equal(held.changelog.filter((c: any) => c.trigger === 'auto_resume').length, 0);
  t.equal(invocations().length, 1, 'no agent was launched again');
  t.match((await l('show', id)).stdout, /^queue: +paused$/m);

  const u = await l.json('unpause', id);
  t.equal(u.run.code, 0);
  t.equal(u.value[0].task.status, 'working', 'unpause resumes the crash, as the next command would have');
  t.equal(u.value[0].task.changelog.at(-1).trigger, 'auto_resume');
  t.equal(u.value[0].task.changelog.at(-1).actor, 'system');
  const w = await l.json('wait', id, '--timeout', '40');
  t.equal(w.value.task.status, 'blocked', 'the resumed turn completes');
  t.equal(invocations().length, 2);
});

test('a stopped task, paused then unpaused, stays interrupted: only a crash is resumed', async (t) => {
  const { sb, l, invocations, scenario } = await agentSandbox();
  t.teardown(sb.cleanup);
  scenario('hang');
  const id = await l.create('stopped', '--accept', 'done');
  await l('start', id);
  await eventually(() => invocations()[0], 20_000, 'the agent to start');
  t.equal((await l('stop', id)).code, 0);
  t.equal((await l('pause', id)).code, 0);
  const u = await l.json('unpause', id);
  t.equal(u.value[0].task.status, 'interrupted', 'a stop is held for the person who stopped it');
  t.equal(invocations().length, 1);
});

test('a crash queued for the fleet is not resumed here, nor when a person takes it back (unqueue)', async (t) => {
  const { sb, l, invocations, scenario } = await agentSandbox();
  t.teardown(sb.cleanup);
  scenario('crash,succeed');
  const id = await l.create('crash, then send to the fleet', '--accept', 'done');
  const s = await l.json('start', id);
  await crashSettled(sb, s.value.run.id);
  const q = await l.json('queue', id, '--priority', '4');
  t.equal(q.run.code, 0, `queue lands before the resume (${q.run.stderr})`);
  t.match(q.value[0].task, {
    status: 'interrupted',
    consecutive_interruptions: 0,
    schedule: { queued: true, priority: 4 },
  });
  t.same(activeMarkers(sb.dir), [], "the queued crash is the fleet's: not resumed here");
  const u = await l.json('unqueue', id);
  t.equal(u.value[0].task.status, 'interrupted', 'taken back, it waits for the person (lazy resume)');
  t.equal((await l('list')).code, 0);
  t.equal((await l.json('show', id)).value.status, 'interrupted');
  t.equal(invocations().length, 1, 'no agent was launched again');
  t.equal((await l('resume', id)).code, 0);
  t.equal((await l.json('wait', id, '--timeout', '40')).value.task.status, 'blocked');
});
