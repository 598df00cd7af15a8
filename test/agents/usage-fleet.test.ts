import t from 'tap';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  activeMarkers,
  agentSandbox,
  eventually,
  readJson,
  runDirOf,
  supervisorGone,
  type AgentBox,
} from '../helpers/agent.js';
import { cli, LAZY } from '../helpers/env.js';
import { inprocSupervisors } from '../helpers/inproc.js';
import { withEnv } from '../../lib/core/env.js';
import { withClock } from '../../lib/core/clock.js';
import { openRepo } from '../../lib/core/repo.js';
import { Store } from '../../lib/store/store.js';
import type { Draft } from '../../lib/store/draft.js';
import { loadConfig } from '../../lib/store/config/index.js';
import { launchTurn } from '../../lib/agents/launch.js';
import { planResume, planStart, type RunRef } from '../../lib/agents/turns.js';
import { pickable } from '../../lib/model/schedule.js';
import { willAutoResume } from '../../lib/reconcile/reconcile.js';
import { placeOf } from '../../lib/core/place.js';

t.jobs = 4;

// Issue 12, "Usage limits": a fleet run (RunRecord.fleet) that hits the agent's usage limit with a named
// reset ends its turn and sends the task back to the queue until then, instead of holding the worker.
// The in-process wait of every other run is pinned by test/agents/waits.test.ts and again below.

interface Fleet {
  box: AgentBox;
  /** The environment the fake agent needs (agentSandbox keeps its own copy for the CLI). */
  env: NodeJS.ProcessEnv;
  id: string;
  l: ReturnType<typeof cli>;
}

/** A task queued for the fleet: the status-neutral queue entry a `lazy queue` records. */
async function queuedTask(
  t: { teardown(f: () => unknown): void },
  adapter: 'command' | 'claude',
  scenario: string,
): Promise<Fleet> {
  const box = await agentSandbox({ adapter });
  t.teardown(box.sb.cleanup);
  const env = {
    ...box.sb.env,
    FAKE_STATE: join(box.sb.home, 'fake-state'),
    FAKE_LOG: join(box.sb.home, 'fake-log.jsonl'),
    FAKE_SCENARIO: scenario,
  };
  const l = cli(box.sb, env, { clock: box.clock });
  const id = await l.create('fleet quota', '--accept', 'done');
  await inStore(env, box.sb.dir, (store) =>
    store.mutate(id, 'queue', (d) => void d.transition('backlog', 'queue', 'queued', { details: { priority: 0 } })),
  );
  return { box, env, id, l };
}

async function inStore<T>(env: NodeJS.ProcessEnv, dir: string, f: (s: Store) => Promise<T>): Promise<T> {
  return withEnv(env, async () => {
    const store = new Store(await openRepo(dir), 'human');
    try {
      return await f(store);
    } finally {
      store.close();
    }
  });
}

/** What a worker's claim records on its move into working (lib/model/schedule.ts, claimOf). */
const claimed = (d: Draft, r: RunRef) =>
  void (d.changes.at(-1)!.details = {
    claim: { host: r.host, lease_until: new Date(Date.now() + 300_000).toISOString() },
  });

/** One turn launched in-process exactly as `lazy start` does, as a fleet worker (fleet) or not, on the box's clock. */
async function launch(f: Fleet, o: { fleet: boolean; resume?: boolean }) {
  return inStore(f.env, f.box.sb.dir, async (store) => {
    const repo = await openRepo(f.box.sb.dir);
    const config = (await loadConfig(repo, store.reader.objects)).merged;
    const { run } = await withClock(f.box.clock, () =>
      launchTurn(repo, store, inprocSupervisors(LAZY), {
        id: f.id,
        op: o.resume ? 'auto-resume' : 'start',
        actor: 'system',
        config,
        ...(o.fleet ? { fleet: true } : {}),
        plan: (d, r) => {
          const p = o.resume
            ? planResume(d, r, { actor: 'system', trigger: 'auto_resume', dirty: false, upstream: 'main' })
            : planStart(d, r);
          claimed(d, r);
          return p;
        },
      }),
    );
    return run;
  });
}

const view = (f: Fleet) => inStore(f.env, f.box.sb.dir, (s) => s.view(f.id));

/** The reset the fake agent named, as the adapter reads it (claude names whole seconds). */
function namedReset(log: string): string {
  const line = /lazy-error: usage-limit resets=(\S+):/.exec(log);
  if (line) return line[1]!;
  const ev = /"resetsAt":(\d+)/.exec(log);
  if (!ev) throw new Error(`no reset in the log:\n${log}`);
  return new Date(Number(ev[1]) * 1000).toISOString();
}

for (const adapter of ['command', 'claude'] as const) {
  t.test(`${adapter}: a fleet run's usage limit sends the task back to the queue until the reset`, async (t) => {
    // A reset two minutes away: the in-process wait would hold the turn (and the worker) that long.
    const f = await queuedTask(t, adapter, 'usage-limit-120000,succeed');
    const run = await launch(f, { fleet: true });
    t.equal(run.fleet, true, 'the run record says fleet');
    await eventually(async () => (await view(f)).status !== 'working', 90_000, 'the turn to end');
    await supervisorGone(f.box.sb, run.id);

    const log = readFileSync(join(runDirOf(f.box.sb, run.id), 'output.log'), 'utf8');
    const reset = namedReset(log);
    // The supervisor's clock never moved: had it waited for the reset, the turn would still be working.
    t.ok(Date.parse(reset) > f.box.clock.now(), 'the turn ended with the reset still ahead');
    const v = await view(f);
    t.equal(v.status, 'interrupted');
    const last = v.changelog.at(-1)!;
    t.match(last, { from: 'working', status: 'interrupted', trigger: 'usage_limit', actor: 'system', run: run.id });
    t.equal(last.reason, `usage limit of fake: waiting until ${reset}`);
    t.equal(last.details?.not_before, reset, 'details.not_before is the named reset');
    t.equal(v.consecutive_interruptions, 0, 'no crash is counted');
    t.equal(v.attention, null, 'nothing asks for a person');
    t.same(v.schedule, { queued: true, priority: 0, paused: false, not_before: reset, claim: null, held: null });
    t.equal(pickable(v.schedule, Date.parse(reset) - 1), false, 'not pickable before the reset');
    t.equal(pickable(v.schedule, Date.parse(reset)), true, 'pickable from the reset on');
    t.same(v.pending_feedback, [v.turns[0]!.id], 'the task prompt is still pending');
    t.equal(v.turns[0]!.feedback, 'pending');
    const agent = v.turns.find((x) => x.run === run.id && x.role === 'agent')!;
    t.match(agent.content, /^interrupted: usage limit of fake: waiting until \S+ \(the agent said: .*hit your limit/);
    t.match(agent.details, { failure_class: 'usage_limit', failure_reason: /hit your limit/ });
    t.equal(f.box.invocations().length, 1, 'no attempt after the limit');
    t.notOk(existsSync(join(f.box.sb.dir, '.git', 'lazy', 'waits', `${f.id}.json`)), 'no in-process wait recorded');
    t.notOk(activeMarkers(f.box.sb.dir).includes(`${f.id}.json`), 'the run holds nothing on this machine');
    t.equal(
      willAutoResume(v, placeOf({ lazyDir: join(f.box.sb.dir, '.git', 'lazy') })),
      false,
      'reconcile leaves it to the queue',
    );
    const shown = (await f.l.json('show', f.id)).value;
    t.match(shown.interrupt, { trigger: 'usage_limit', not_before: reset }, 'show --json carries the entry');
    t.match(shown.schedule, { not_before: reset });
    t.match(log, /usage limit \(.*\); the task waits in the queue until \S+/);

    // The next claim (after the reset) resumes the same agent session and delivers the pending prompt.
    const next = await launch(f, { fleet: true, resume: true });
    await eventually(async () => (await view(f)).status === 'blocked', 30_000, 'the next turn to end');
    await supervisorGone(f.box.sb, next.id);
    const [first, second] = f.box.invocations();
    if (adapter === 'claude') {
      t.equal(next.agent_session_id, first!.session, 'the next claim resumes the agent session');
      t.equal(second!.session, first!.session);
    }
    t.match(second!.prompt, /Task: fleet quota/, 'the pending task prompt is delivered');
    t.match(second!.prompt, /reached the agent's usage limit, which has reset since\. It did not crash or fail\./);
    t.notMatch(second!.prompt, /after a crash|Previous failure/, 'a usage limit is never called a crash');
    const after = await view(f);
    t.equal(after.turns[0]!.feedback, 'consumed', 'consumed once a turn completed');
    t.equal(after.consecutive_interruptions, 0);
  });
}

t.test('an unqueued usage-limited task is not auto-resumed: a person resumes or re-queues it', async (t) => {
  const f = await queuedTask(t, 'command', 'usage-limit-5000,succeed');
  const run = await launch(f, { fleet: true });
  await eventually(async () => (await view(f)).status === 'interrupted', 30_000, 'the turn to end');
  await supervisorGone(f.box.sb, run.id);
  await inStore(f.env, f.box.sb.dir, (s) =>
    s.mutate(f.id, 'unqueue', (d) => void d.transition('interrupted', 'unqueue', 'unqueued')),
  );
  const v = await view(f);
  t.equal(v.schedule.queued, false);
  t.equal(
    willAutoResume(v, placeOf({ lazyDir: join(f.box.sb.dir, '.git', 'lazy') })),
    false,
    'not before its reset, nor after',
  );
  t.ok(v.available_actions.includes('resume'), 'lazy resume continues it');
  t.ok(v.available_actions.includes('queue'), 'lazy queue sends it back to the fleet');
  f.box.clock.advance(6000); // past the reset
  const listed = await f.l('list');
  t.equal(listed.code, 0);
  t.equal((await view(f)).status, 'interrupted', "a command's reconcile did not resume it");
  t.equal(f.box.invocations().length, 1);
});

t.test('a run that is not a fleet run still waits for the reset in its supervisor', async (t) => {
  const f = await queuedTask(t, 'command', 'usage-limit-60000,succeed');
  const run = await launch(f, { fleet: false });
  t.notOk(run.fleet);
  const waits = join(f.box.sb.dir, '.git', 'lazy', 'waits', `${f.id}.json`);
  await eventually(() => existsSync(waits), 20_000, 'the in-process wait');
  t.equal(readJson(waits).run, run.id);
  const v = await view(f);
  t.equal(v.status, 'working', 'the turn waits, working');
  t.equal(v.schedule.not_before, null);
  t.equal((await f.l('stop', f.id)).code, 0);
  await supervisorGone(f.box.sb, run.id);
  t.equal((await view(f)).changelog.at(-1)!.trigger, 'stop');
});

t.test('a fleet run whose usage limit names no reset still rechecks in its supervisor', async (t) => {
  const f = await queuedTask(t, 'command', 'usage-limit-none,succeed');
  const run = await launch(f, { fleet: true });
  const waits = join(f.box.sb.dir, '.git', 'lazy', 'waits', `${f.id}.json`);
  await eventually(() => existsSync(waits), 20_000, 'the in-process wait');
  t.match(readJson(waits), { run: run.id, reset_named: false });
  const v = await view(f);
  t.equal(v.status, 'working', 'the turn waits, working');
  t.equal(v.schedule.not_before, null, 'no not-before time is invented');
  t.equal((await f.l('stop', f.id)).code, 0);
  await supervisorGone(f.box.sb, run.id);
});

t.test('a fleet run whose usage limit resets beyond usage_limit_max_wait_ms blocks the task', async (t) => {
  const f = await queuedTask(t, 'command', `usage-limit-${8 * 3_600_000},succeed`);
  const run = await launch(f, { fleet: true });
  await eventually(async () => (await view(f)).status !== 'working', 30_000, 'the turn to end');
  await supervisorGone(f.box.sb, run.id);
  const v = await view(f);
  t.equal(v.status, 'blocked');
  t.match(v.changelog.at(-1), { trigger: 'turn_failed', details: { failure_class: 'usage_limit' } });
  t.match(v.attention, { kind: 'failure', reason: /usage_limit_max_wait_ms/ });
  t.equal(v.schedule.queued, false, 'out of the queue: a person decides');
  t.equal(f.box.invocations().length, 1);
});
