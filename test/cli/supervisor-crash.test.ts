import t from 'tap';
import { detachedLauncher } from '../../lib/core/launcher.js';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { agentSandbox, eventually, readJson, runDirOf, activeMarkers } from '../helpers/agent.js';
import { cli, gitSync, LAZY } from '../helpers/env.js';
import { attentionFacts, parked, worktreeStatus } from '../helpers/ask.js';
import { liveness, thisHost } from '../../lib/core/proc.js';

t.jobs = 4;

// The detached supervisor (the built binary) SIGKILLed at a turn's worst moments: the
// next command's reconcile records the crash, kills the verified orphan agent, and
// resumes, holds or restores the task as the table says.

// Every case here kills a supervisor: they run as processes of their own, as the CLI starts them.

t.test('SIGKILL of the supervisor: orphan agent killed only when verified, task resumed', async (t) => {
  const { sb, l, invocations, scenario } = await agentSandbox({ detached: true });
  t.teardown(sb.cleanup);
  scenario('hang,succeed');
  const id = await l.create('supervisor dies', '--accept', 'done');
  const s = await l.json('start', id);
  const runId = s.value.run.id;
  const rec = await eventually(
    () => {
      const r = readJson(join(runDirOf(sb, runId), 'run.json'));
      return r.supervisor && invocations().length ? r : undefined;
    },
    20000,
    'the supervisor and agent',
  );
  const agentPid = invocations()[0]!.pid;
  process.kill(rec.supervisor.pid, 'SIGKILL');
  await eventually(() => liveness(rec.supervisor) === 'dead', 5000, 'supervisor death');
  const spawned = await l.spawn('wait', id, '--timeout', '40', '--json');
  const w = { run: spawned, value: JSON.parse(spawned.stdout).task };
  t.equal(w.run.code, 0);
  t.equal(
    liveness({
      ...rec.supervisor,
      pid: agentPid,
      start_ticks: readJson(join(runDirOf(sb, runId), 'agent.json')).start_ticks,
    }),
    'dead',
    'the orphaned agent was killed',
  );
  const crash = w.value.changelog.find((c: any) => c.trigger === 'turn_crashed');
  t.match(crash.reason, /supervisor died/);
  t.equal(invocations().length, 2);
  t.match(invocations()[1]!.prompt, /You are being resumed after a crash/);
  t.match(invocations()[1]!.prompt, /Task: supervisor dies/, 'the pending feedback reached the new turn');
});

const waitingOf = async (l: any, id: string) => (await l.json('show', id)).value.waiting;

t.test(
  'a supervisor SIGKILLed during a usage-limit wait: the next command records the crash and drops the wait record',
  async (t) => {
    const { sb, l, scenario } = await agentSandbox({ detached: true });
    t.teardown(sb.cleanup);
    scenario('usage-limit-600000,succeed');
    const id = await l.create('killed while waiting', '--accept', 'done');
    const runId = (await l.json('start', id)).value.run.id;
    await eventually(() => waitingOf(l, id), 20_000, 'the wait');
    const rec = JSON.parse(readFileSync(join(runDirOf(sb, runId), 'run.json'), 'utf8'));
    process.kill(rec.supervisor.pid, 'SIGKILL');
    const record = join(sb.dir, '.git', 'lazy', 'waits', `${id}.json`);
    t.ok(existsSync(record), 'the killed supervisor left its record');
    t.equal((await l.spawn('list')).code, 0, 'the next command runs');
    const v = await eventually(
      async () => {
        const x = (await l.json('show', id)).value;
        return x.changelog.some((c: any) => c.trigger === 'turn_crashed') ? x : undefined;
      },
      20_000,
      'the crash recorded',
    );
    t.notOk(existsSync(record), "reconcile removed the dead run's wait record");
    t.equal(v.waiting, null);
    await l('wait', id, '--timeout', '60');
  },
);

t.test(
  "SIGKILL of an ask's supervisor: reconcile restores the status and sets the leftovers aside, never resumes",
  async (t) => {
    const box = await agentSandbox({ detached: true });
    t.teardown(box.sb.cleanup);
    const { id, before, wt } = await parked(box, 'succeed,litter-hang');
    const asking = box.l.json('ask', id, '-m', 'hello?', '--timeout', '60');
    const inv = await eventually(() => box.invocations()[1], 20000, 'the ask agent');
    await eventually(() => existsSync(join(wt, 'stray-2.txt')), 20000, 'the ask to write');
    const run = (await box.l.json('show', id)).value.current_run;
    const rec = await eventually(() => {
      const r = readJson(join(runDirOf(box.sb, run), 'run.json'));
      return r.supervisor ? r : undefined;
    });
    process.kill(rec.supervisor.pid, 'SIGKILL');
    await eventually(() => liveness(rec.supervisor) === 'dead', 5000, 'supervisor death');
    const next = await box.l('list');
    const waited = await asking;
    t.equal(waited.run.code, 0);
    // Whichever command reconciled first (the waiting ask or list) warns where the leftovers went.
    t.match(
      next.stderr + waited.run.stderr,
      /kept in stash [0-9a-f]{40}/,
      'the command that noticed says where the leftovers went',
    );
    t.match(waited.value.answer.details.set_aside.note, /kept in stash/);
    const after = (await box.l.json('show', id)).value;
    t.same(attentionFacts(after), attentionFacts(before));
    t.equal(worktreeStatus(box, wt), '');
    t.equal(
      liveness({
        ...rec.supervisor,
        pid: inv.pid,
        start_ticks: readJson(join(runDirOf(box.sb, run), 'agent.json')).start_ticks,
      }),
      'dead',
      'the orphaned agent was killed',
    );
    t.equal(box.invocations().length, 2, 'not resumed as work');
  },
);

t.test('a supervisor killed during merge-and-fix is held too (the merge is still in progress)', async (t) => {
  const { sb, l, invocations, scenario } = await agentSandbox({ detached: true });
  t.teardown(sb.cleanup);
  const id = await l.create('supervisor dies mid-merge', '--accept', 'done');
  await l('start', id);
  t.equal((await l.json('wait', id, '--timeout', '40')).run.code, 0);
  writeFileSync(join(sb.dir, 'work-1.txt'), 'main says otherwise\n');
  gitSync(sb.dir, sb.env, ['add', 'work-1.txt']);
  gitSync(sb.dir, sb.env, ['commit', '-q', '-m', 'main: conflicting work-1.txt']);
  scenario('hang');
  const u = await l.json('unblock', id, '-m', 'more please');
  t.equal(u.run.code, 0);
  const rec = await eventually(
    () => {
      const r = readJson(join(runDirOf(sb, u.value.run.id), 'run.json'));
      return r.supervisor && invocations().length === 2 ? r : undefined;
    },
    20_000,
    'the supervisor and agent',
  );
  process.kill(rec.supervisor.pid, 'SIGKILL');
  await eventually(() => liveness(rec.supervisor) === 'dead', 5000, 'the supervisor to die');
  const w = await l.spawn('wait', id, '--timeout', '30');
  t.equal(w.code, 4, 'wait returns: nothing will resume it');
  const v = (await l.json('show', id)).value;
  t.equal(v.status, 'interrupted');
  t.match(v.changelog.at(-1).reason, /supervisor died/);
  t.match(v.attention?.reason, /conflicting upstream merge \(work-1\.txt\): not resumed automatically/);
  t.equal(invocations().length, 2, 'no auto-resume');
  t.same(activeMarkers(sb.dir), []);
});

t.test(
  'a turn whose processes are gone under an old host name (a recreated container): the next command in its clone records the crash and resumes it (issue 27)',
  async (t) => {
    const { sb, l, invocations } = await agentSandbox({ detached: true });
    t.teardown(sb.cleanup);
    const fake = { FAKE_STATE: join(sb.home, 'fake-state'), FAKE_LOG: join(sb.home, 'fake-log.jsonl') };
    const old = cli(sb, { ...fake, FAKE_SCENARIO: 'hang', LAZY_HOST: 'old-box' }, { launcher: detachedLauncher(LAZY) });
    const id = await l.create('host renamed', '--accept', 'done');
    const s = await old.json('start', id);
    t.equal(s.run.code, 0);
    const rec = await eventually(
      () => {
        const r = readJson(join(runDirOf(sb, s.value.run.id), 'run.json'));
        return r.supervisor && invocations().length ? r : undefined;
      },
      20_000,
      'the supervisor and agent',
    );
    process.kill(rec.supervisor.pid, 'SIGKILL');
    process.kill(-invocations()[0]!.pid, 'SIGKILL'); // the agent leads its process group
    await eventually(() => liveness({ ...rec.supervisor, host: thisHost() }) === 'dead', 5000, 'the supervisor to die');

    // Before, nothing judged it (another host name: "unknown") and wait spun until its timeout; the clone is what counts.
    const w = await l.json('wait', id, '--timeout', '40');
    t.equal(w.run.code, 0, 'the crash is recorded and the task resumed here; the resumed turn ends');
    const v = (await l.json('show', id)).value;
    t.equal(v.status, 'blocked');
    const crash = v.changelog.find((c: any) => c.trigger === 'turn_crashed');
    t.match(crash?.reason, /supervisor died/);
    t.equal(crash?.host, 'old-box', 'recorded under the host name the run had');
    t.ok(
      v.changelog.some((c: any) => c.trigger === 'auto_resume'),
      'and resumed in this clone, under its new host name',
    );
    t.equal(invocations().length, 2, 'one more agent run');
    t.same(activeMarkers(sb.dir), []);
    t.equal((await l.json('doctor')).run.code, 0, 'doctor finds nothing left');
  },
);
