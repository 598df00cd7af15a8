import t from 'tap';
import { join } from 'node:path';
import { agentSandbox, eventually, readJson, reviewed, runDirOf } from '../helpers/agent.js';
import { liveness } from '../../lib/core/proc.js';
import { gitSync, LAZY } from '../helpers/env.js';
import { background, exited } from '../helpers/procs.js';
import { existsSync, readFileSync } from 'node:fs';

t.jobs = 3;

// lazy follow-up and lazy repair through the built CLI: their --json (turn-started), their refusals, and a
// follow-up whose supervisor is SIGKILLed: the next command's reconcile returns the task to complete, never resumes.

t.test('SIGKILL of a follow-up supervisor: reconcile returns the task to complete, never resumes it', async (t) => {
  const box = await agentSandbox({ detached: true });
  t.teardown(box.sb.cleanup);
  const id = await reviewed(box, 'killed round');
  t.equal((await box.l('accept', id, '--yes')).code, 0);
  gitSync(box.sb.dir, box.sb.env, ['branch', `lazy/${id}`, (await box.l.json('show', id)).value.reviewed_head]);
  box.scenario('hang');
  const f = await box.l.spawn('follow-up', id, '-m', 'one more thing', '--json');
  t.equal(f.code, 0, f.stderr);
  const runId = JSON.parse(f.stdout).run.id;
  const rec = await eventually(
    () => {
      const r = readJson(join(runDirOf(box.sb, runId), 'run.json'));
      return r.supervisor && box.invocations().length === 2 ? r : undefined;
    },
    20_000,
    'the supervisor and agent',
  );
  process.kill(rec.supervisor.pid, 'SIGKILL');
  await eventually(() => liveness(rec.supervisor) === 'dead', 5000, 'supervisor death');
  t.equal((await box.l.spawn('list', '--all')).code, 0, 'the next command reconciles');
  const v = await eventually(
    async () => {
      const x = (await box.l.json('show', id)).value;
      return x.status !== 'working' ? x : undefined;
    },
    20_000,
    'the round ended',
  );
  t.equal(v.status, 'complete', 'back to complete');
  t.equal(v.consecutive_interruptions, 0, 'the breaker counted nothing');
  t.notOk(
    v.changelog.some((c: any) => c.trigger === 'turn_crashed'),
    'no crash recorded as one of the task',
  );
  t.match(v.changelog.at(-1), { trigger: 'round_end', status: 'complete', run: runId });
  t.match(v.changelog.at(-1).reason, /^follow-up 1 interrupted: back to complete/);
  const turn = v.turns.find((x: any) => x.run === runId && x.role === 'agent');
  t.match(turn, { kind: 'error', details: { mode: 'follow_up', outcome: 'interrupted' } }, 'the crash is on record');
  t.equal((await box.l.spawn('list')).code, 0);
  t.equal(box.invocations().length, 2, 'not resumed');
});

t.test('the spawned CLI: follow-up --command, repair, their --json and refusals', async (t) => {
  const box = await agentSandbox();
  t.teardown(box.sb.cleanup);
  const id = await reviewed(box, 'cli round');
  t.equal((await box.l('accept', id, '--yes')).code, 0);
  const reviewedHead = (await box.l.json('show', id)).value.reviewed_head;
  const f = await box.l.spawn('follow-up', id, '--command', 'echo from-the-command', '--json');
  t.equal(f.code, 0, f.stderr);
  const fj = JSON.parse(f.stdout);
  t.equal(
    gitSync(box.sb.dir, box.sb.env, ['merge-base', '--is-ancestor', reviewedHead, `lazy/${id}`]),
    '',
    "the accept's deleted branch is made again at the reviewed head",
  );
  t.match(fj, { task: { id, status: 'complete' }, run: { kind: 'follow_up', task: id } });
  const followed = await box.l.spawn('follow-up', id, '--command', 'echo streamed', '--follow');
  t.equal(followed.code, 0, followed.stderr);
  t.match(followed.stdout, /^streamed\n/, '--follow prints the output as it runs');
  t.match(followed.stdout, /follow-up 2 ran → back to complete/);
  const agentFollowed = await box.l.spawn('follow-up', id, '-m', 'a third thing', '--follow');
  t.equal(agentFollowed.code, 0, 'an agent round followed to its end back in complete: exit 0');
  t.match(agentFollowed.stdout, new RegExp(`${id}: complete\\n?$`));
  const both = await box.l.spawn('follow-up', id, '--command', 'true', '-m', 'and a prompt');
  t.equal(both.code, 2, 'a prompt and a command: a usage error');
  const no = await box.l.spawn('repair', id, '-m', 'fix', '--json');
  t.equal(no.code, 4, 'no repair of a complete task');
  t.match(JSON.parse(no.stdout), { error: { code: 'action_not_allowed', details: { status: 'complete' } } });

  box.scenario('auth');
  const b = await box.l.create('blocked by auth', '--accept', 'done');
  await box.l('start', b);
  await box.l('wait', b, '--timeout', '30');
  box.scenario('succeed');
  const r = await box.l.spawn('repair', b, '-m', 'log in again', '--follow');
  t.equal(r.code, 0, r.stderr);
  t.match(r.stdout, new RegExp(`${b}: blocked — failure: `), '--follow ends with the task back where it was');
  const v = (await box.l.json('show', b)).value;
  t.equal(v.status, 'blocked');
  t.equal(v.changelog.at(-1).trigger, 'round_end');
  const help = await box.l.spawn('follow-up', '--help');
  t.match(help.stdout, /--command/);
});

t.test('SIGKILL of the lazy process running a follow-up --command: reconcile returns the task', async (t) => {
  const box = await agentSandbox();
  t.teardown(box.sb.cleanup);
  const id = await reviewed(box, 'killed command');
  t.equal((await box.l('accept', id, '--yes')).code, 0);
  gitSync(box.sb.dir, box.sb.env, ['branch', `lazy/${id}`, (await box.l.json('show', id)).value.reviewed_head]);
  const pidFile = join(box.sb.home, 'command.pid');
  const child = background(
    process.execPath,
    [LAZY, 'follow-up', id, '--command', `echo $$ > '${pidFile}'; exec sleep 60`],
    {
      cwd: box.sb.dir,
      env: box.sb.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const gone = exited(child);
  await eventually(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim(), 20_000, 'the command');
  const sleeper = Number(readFileSync(pidFile, 'utf8').trim());
  t.teardown(() => {
    try {
      process.kill(sleeper, 'SIGKILL');
    } catch {
      // gone already
    }
  });
  t.equal((await box.l.json('show', id)).value.status, 'working', 'the round runs');
  child.kill('SIGKILL');
  await gone;
  t.equal((await box.l('list')).code, 0, 'the next command reconciles');
  const v = (await box.l.json('show', id)).value;
  t.equal(v.status, 'complete', 'back to complete');
  t.match(v.changelog.at(-1), { trigger: 'round_end', status: 'complete' });
  t.match(v.changelog.at(-1).reason, /^follow-up 1 interrupted/);
  t.equal(v.consecutive_interruptions, 0);
});

t.test(
  'lazy stop ends a follow-up --command round from another terminal: its command group, then the round',
  async (t) => {
    const box = await agentSandbox();
    t.teardown(box.sb.cleanup);
    const id = await reviewed(box, 'stopped command');
    t.equal((await box.l('accept', id, '--yes')).code, 0);
    const pidFile = join(box.sb.home, 'stopped.pid');
    const child = background(
      process.execPath,
      [LAZY, 'follow-up', id, '--command', `echo $$ > '${pidFile}'; sleep 60 & wait`],
      { cwd: box.sb.dir, env: box.sb.env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const ended = exited(child);
    await eventually(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim(), 20_000, 'the command');
    t.equal((await box.l.json('show', id)).value.status, 'working', 'the round runs');
    const stopped = await box.l.spawn('stop', id, '--json');
    t.equal(stopped.code, 0, stopped.stderr);
    t.match(JSON.parse(stopped.stdout), { task: { status: 'complete' }, signal: 'SIGTERM' }, 'its group got SIGTERM');
    t.equal((await ended).code, 0, 'the follow-up process recorded how its command ended, then exited');
    const v = (await box.l.json('show', id)).value;
    t.equal(v.status, 'complete', 'back to complete');
    t.match(v.changelog.at(-1), { trigger: 'round_end', status: 'complete' });
    const sh = Number(readFileSync(pidFile, 'utf8').trim());
    t.throws(() => process.kill(sh, 0), 'the command is gone, and the sleep it started with it');
  },
);
