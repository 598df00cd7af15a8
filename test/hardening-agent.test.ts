import t from 'tap';
import { appendFileSync, existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { background } from './helpers/procs.js';
import { cli, gitSync, LAZY, type Sandbox } from './helpers/env.js';
import { team } from './helpers/team.js';
import { agentSandbox, eventually, readJson, runDirOf, type AgentBox } from './helpers/agent.js';

// What an agent does cannot hang or exhaust lazy (issue 8, items 8-10).

/** Running, not a zombie (a zombie's new parent may reap it late). */
const alive = (pid: number) => {
  try {
    return !/^[ZX]$/.test(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ').at(-1)!.split(' ')[0]!);
  } catch {
    return false;
  }
};

/** The pid a fake agent's child wrote (FAKE_STATE/child-<n>.pid), and a teardown that ends it if a test failed. */
async function childPid(t: { teardown(f: () => void): void }, box: AgentBox, n = 1): Promise<number> {
  const file = join(box.sb.home, 'fake-state', `child-${n}.pid`);
  const pid = await eventually(() => existsSync(file) && Number(readFileSync(file, 'utf8')), 20_000, 'the child pid');
  t.teardown(() => {
    if (alive(pid)) process.kill(pid, 'SIGKILL');
  });
  return pid;
}

/** Removes the sandbox once every supervisor it started has exited: no test leaves a process behind. */
function cleanupAfterSupervisors(t: { teardown(f: () => Promise<void>): void }, sb: Sandbox): void {
  t.teardown(async () => {
    const runs = join(sb.dir, '.git', 'lazy', 'runs');
    const pids = existsSync(runs)
      ? readdirSync(runs).map((r) => {
          try {
            return readJson(join(runs, r, 'run.json')).supervisor?.pid as number | undefined;
          } catch {
            return undefined;
          }
        })
      : [];
    for (const pid of pids) if (pid) await eventually(() => !alive(pid), 30_000, `supervisor ${pid} to exit`);
    sb.cleanup();
  });
}

t.test('a child the agent leaves running neither keeps the turn open nor outlives it', async (t) => {
  const box = await agentSandbox();
  const { sb, l, scenario } = box;
  cleanupAfterSupervisors(t, sb);
  scenario('leave-child');
  const id = await l.create('leave a child', '--accept', 'done');
  const s = await l.json('start', id);
  const pid = await childPid(t, box);
  const w = await l.json('wait', id, '--timeout', '30');
  t.equal(w.run.code, 0, 'the turn ended when the agent exited');
  t.equal(w.value.status, 'blocked');
  t.equal(w.value.attention.kind, 'review');
  await eventually(() => !alive(pid), 5000, 'the child to be gone');
  t.notOk(alive(pid), "the child was ended with the agent's process group");
  t.match(
    readFileSync(join(runDirOf(sb, s.value.run.id), 'output.log'), 'utf8'),
    /left processes running; they were ended with SIGTERM/,
  );
});

t.test('a child that escaped into its own session does not keep the turn open', async (t) => {
  const box = await agentSandbox();
  const { sb, l, scenario } = box;
  cleanupAfterSupervisors(t, sb);
  scenario('leave-daemon');
  const id = await l.create('leave a daemon', '--accept', 'done');
  await l('start', id);
  const pid = await childPid(t, box);
  const w = await l.json('wait', id, '--timeout', '30');
  t.equal(w.run.code, 0, 'the turn ended although the daemon still holds the output pipe');
  t.equal(w.value.status, 'blocked');
  process.kill(pid, 'SIGKILL');
  await eventually(() => !alive(pid), 5000, 'the daemon to be gone');
});

t.test('stop finds what the agent left running after it exited', async (t) => {
  const box = await agentSandbox({ settings: { stop_grace_ms: '4000' } });
  const { sb, l, scenario, invocations } = box;
  cleanupAfterSupervisors(t, sb);
  scenario('leave-stubborn-child');
  const id = await l.create('stubborn child', '--accept', 'done');
  await l('start', id);
  const pid = await childPid(t, box);
  const agentPid = invocations()[0]!.pid;
  await eventually(() => !alive(agentPid), 10_000, 'the agent to exit');
  const s = await l.json('stop', id);
  t.equal(s.run.code, 0);
  t.not(s.value.signal, 'none', `stop found the child (${s.value.signal} after ${s.value.waited_ms} ms)`);
  t.notOk(alive(pid), 'the child that ignored SIGTERM is gone when stop returns');
  const w = await l.json('wait', id, '--timeout', '30');
  t.equal(w.run.code, 4, 'wait ends outside the blocked family');
  t.equal(w.value.error.details.status, 'interrupted', JSON.stringify(w.value));
  const v = (await l.json('show', id)).value;
  t.equal(v.attention.reason, 'stopped by the user');
});

t.test("reconcile kills the verified leftovers of a dead supervisor's agent", async (t) => {
  const box = await agentSandbox({ settings: { stop_grace_ms: '8000' } });
  const { sb, l, scenario, invocations } = box;
  cleanupAfterSupervisors(t, sb);
  scenario('leave-stubborn-child,succeed');
  const id = await l.create('orphaned child', '--accept', 'done');
  const s = await l.json('start', id);
  const pid = await childPid(t, box);
  const agentPid = invocations()[0]!.pid;
  await eventually(() => !alive(agentPid), 10_000, 'the agent to exit');
  const rec = readJson(join(runDirOf(sb, s.value.run.id), 'run.json'));
  process.kill(rec.supervisor.pid, 'SIGKILL');
  await eventually(() => !alive(rec.supervisor.pid), 5000, 'the supervisor to die');
  t.ok(alive(pid), 'the child outlived its supervisor');
  const r = await l('list');
  t.equal(r.code, 0);
  await eventually(() => !alive(pid), 5000, 'the orphaned child to be gone');
  t.notOk(alive(pid), 'the orphan kill reached the child although its leader had exited');
  const w = await l.json('wait', id, '--timeout', '30');
  t.equal(w.value.status, 'blocked', 'the crashed turn was resumed and completed');
});

// Item 9: bounded reads.

t.test('a FIFO or a device as $LAZY_RESULT breaks the result contract; it never hangs the supervisor', async (t) => {
  for (const hostile of ['result-fifo', 'result-zero']) {
    const { sb, l, scenario } = await agentSandbox();
    cleanupAfterSupervisors(t, sb);
    scenario(`${hostile},succeed`);
    const id = await l.create(hostile, '--accept', 'done');
    const s = await l.json('start', id);
    const outcome = await eventually(
      () =>
        existsSync(join(runDirOf(sb, s.value.run.id), 'outcome.json')) &&
        readJson(join(runDirOf(sb, s.value.run.id), 'outcome.json')),
      30_000,
      `the outcome of ${hostile}`,
    );
    t.equal(outcome.kind, 'interrupted', hostile);
    t.match(
      outcome.summary,
      hostile === 'result-fifo'
        ? /result contract: .* is a FIFO, not a regular file/
        : /result contract: .* is a device, not a regular file/,
    );
    const w = await l.json('wait', id, '--timeout', '30');
    t.equal(w.value.status, 'blocked', 'the next turn ran normally');
  }
});

/** Spawns the CLI with stdin fed `bytes` and then held open (never EOF); resolves with its exit. */
function withEndlessStdin(
  box: AgentBox,
  args: string[],
  bytes: number,
): Promise<{ code: number | null; stdout: string; ms: number }> {
  return new Promise((res) => {
    const started = Date.now();
    const child = background(process.execPath, [LAZY, ...args], {
      cwd: box.sb.dir,
      env: box.sb.env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stdin.on('error', () => {});
    child.stdin.write(Buffer.alloc(bytes, 'y\n'));
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      child.stdin.destroy();
      res({ code, stdout, ms: Date.now() - started });
    });
  });
}

t.test('stdin is read to its limit plus one byte, not to its end', async (t) => {
  const box = await agentSandbox();
  cleanupAfterSupervisors(t, box.sb);
  const id = await box.l.create('endless stdin');
  const r = await withEndlessStdin(box, ['comment', id, '--json'], 600 * 1024);
  t.equal(r.code, 2, `a usage error, not a hang (${r.ms} ms)`);
  t.match(JSON.parse(r.stdout).error, {
    code: 'usage',
    message: /stdin is larger than 524288 bytes/,
    details: { limit: 524288 },
  });
  t.equal((await box.l.json('show', id)).value.turns.length, 0, 'nothing was written');
});

t.test('--prompt-file must be a regular file: a FIFO is refused, never waited on', async (t) => {
  const box = await agentSandbox();
  cleanupAfterSupervisors(t, box.sb);
  const fifo = join(box.sb.dir, 'prompt.fifo');
  execFileSync('mkfifo', [fifo]);
  const r = await box.l.json('create', 'fifo prompt', '--prompt-file', fifo);
  t.equal(r.run.code, 2);
  t.match(r.value.error.message, /prompt\.fifo is a FIFO, not a regular file/);
  writeFileSync(join(box.sb.dir, 'big.txt'), Buffer.alloc(600 * 1024, 'a'));
  const big = await box.l.json('create', 'big prompt', '--prompt-file', 'big.txt');
  t.equal(big.run.code, 2);
  t.match(big.value.error.message, /--prompt-file big.txt is larger than 524288 bytes/);
});

t.test('show reads only the tail of a huge run log', async (t) => {
  const { sb, l, scenario, invocations } = await agentSandbox();
  cleanupAfterSupervisors(t, sb);
  scenario('hang');
  const id = await l.create('huge log', '--accept', 'done');
  const s = await l.json('start', id);
  await eventually(() => invocations()[0], 20_000, 'the agent');
  // One 32 MiB line, then a last one: what an agent that never prints a newline leaves.
  appendFileSync(join(runDirOf(sb, s.value.run.id), 'output.log'), Buffer.alloc(32 * 1024 * 1024, 'z'));
  appendFileSync(join(runDirOf(sb, s.value.run.id), 'output.log'), '\nthe last line\n');
  const r = await l('show', id, '--json');
  t.equal(r.code, 0);
  t.ok(r.stdout.length < 256 * 1024, `show printed ${r.stdout.length} bytes`);
  t.equal(JSON.parse(r.stdout).run.log.at(-1), 'the last line');
  t.equal((await l.json('stop', id)).run.code, 0);
});

// Item 10: what one task may hold.

/** Appends `n` copies of the task's last comment (new ids and clocks) in one commit, through git fast-import. */
function plantComments(sb: Sandbox, id: string, n: number): void {
  const ref = `refs/lazy/tasks/${id}`;
  const name = gitSync(sb.dir, sb.env, ['ls-tree', '--name-only', `${ref}:turns`])
    .trim()
    .split('\n')
    .at(-1)!;
  const body = gitSync(sb.dir, sb.env, ['show', `${ref}:turns/${name}`]);
  const [, clock0, id0] = /^(\d+)-([0-9a-z]{8})\.yaml$/.exec(name)!;
  const alphabet = '0123456789abcdefghjkmnpqrstvwxyz';
  let stream = `commit ${ref}\ncommitter A <a@example.com> 1700000000 +0000\ndata 7\nplanted\nfrom ${ref}^0\n`;
  for (let i = 1; i <= n; i++) {
    let eid = 'z';
    for (let k = 0, x = i; k < 7; k++, x = Math.floor(x / 32)) eid += alphabet[x % 32];
    const clock = Number(clock0) + i;
    const doc = body.replaceAll(id0!, eid).replace(/^clock: .*$/m, `clock: ${clock}`);
    stream += `M 100644 inline turns/${String(clock).padStart(10, '0')}-${eid}.yaml\ndata ${Buffer.byteLength(doc)}\n${doc}\n`;
  }
  gitSync(sb.dir, sb.env, ['fast-import', '--quiet'], `${stream}\n`);
}

t.test(
  'a task at its entry limit refuses growing writes with exit 4, loses nothing, and can still be closed',
  async (t) => {
    const { sb, l } = await agentSandbox();
    cleanupAfterSupervisors(t, sb);
    const id = await l.create('a long history');
    t.equal((await l('comment', id, '-m', 'first')).code, 0);
    plantComments(sb, id, 4998); // create + first + 4998 = 5000 entries
    const tip = gitSync(sb.dir, sb.env, ['rev-parse', `refs/lazy/tasks/${id}`]).trim();
    const r = await l.json('comment', id, '-m', 'one too many');
    t.equal(r.run.code, 4);
    t.match(r.value.error, {
      code: 'task_full',
      message: /holds 5000 entries; one task holds at most 5000/,
      details: { action: 'comment', status: 'backlog', available_actions: ['close'], entries: 5000, limit: 5000 },
    });
    t.equal(gitSync(sb.dir, sb.env, ['rev-parse', `refs/lazy/tasks/${id}`]).trim(), tip, 'nothing was written');
    t.equal((await l.json('start', id)).run.code, 4, 'a new turn is refused too');
    t.equal((await l.json('edit', id, '--tag', 'x')).run.code, 0, 'an edit adds no entry and still lands');
    const closed = await l.json('close', id, '-m', 'moved on');
    t.equal(closed.run.code, 0, 'a finishing write still lands');
    t.equal(closed.value.task.status, 'abandoned');
  },
);

t.test('pull refuses a remote task holding more entries than the hard limit', async (t) => {
  const tm = team(2);
  t.teardown(tm.cleanup);
  const [a, b] = tm.clones as [Sandbox, Sandbox];
  const la = cli(a);
  const id = await la.create('too long to travel');
  t.equal((await la('comment', id, '-m', 'first')).code, 0);
  plantComments(a, id, 6000);
  gitSync(a.dir, a.env, ['push', '-q', 'origin', `refs/lazy/tasks/${id}:refs/lazy/tasks/${id}`]);
  const p = await cli(b).json('pull');
  t.match(JSON.stringify(p.value), new RegExp(`has 6002 entries, more than 6000`));
  t.equal((await cli(b).json('show', id)).run.code, 3, 'the task did not arrive');
});

t.test(
  'an agent flooding its output: the turn completes, the run log is rotated, the review summary is bounded',
  async (t) => {
    for (const flood of ['flood', 'flood-noline']) {
      const { sb, l, scenario } = await agentSandbox();
      cleanupAfterSupervisors(t, sb);
      scenario(flood);
      const id = await l.create(flood, '--accept', 'done');
      const s = await l.json('start', id);
      const w = await l.json('wait', id, '--timeout', '120');
      t.equal(w.value.status, 'blocked', `${flood}: completed`);
      const dir = runDirOf(sb, s.value.run.id);
      const sizes = ['output.log', 'output.log.1'].map((f) =>
        existsSync(join(dir, f)) ? statSync(join(dir, f)).size : 0,
      );
      t.ok(
        sizes[1]! > 0 && sizes.every((n) => n <= 33 * 1024 * 1024),
        `${flood}: 80 MiB of output kept as ${sizes.join(' + ')} bytes`,
      );
      t.ok(w.value.turns.at(-1).content.length < 70 * 1024, `${flood}: the summary is bounded`);
    }
  },
);

t.test('a FIFO planted over a run file never hangs stop or reconcile', async (t) => {
  const { sb, l, scenario, invocations } = await agentSandbox();
  cleanupAfterSupervisors(t, sb);
  scenario('hang');
  const id = await l.create('planted fifo', '--accept', 'done');
  const s = await l.json('start', id);
  await eventually(() => invocations()[0], 20_000, 'the agent');
  const dir = runDirOf(sb, s.value.run.id);
  const agentPid = invocations()[0]!.pid;
  rmSync(join(dir, 'outcome.json'), { force: true });
  execFileSync('mkfifo', [join(dir, 'outcome.json')]);
  const r = await l.json('list');
  t.equal(r.run.code, 0, 'reconcile read past the FIFO');
  const stop = await l.json('stop', id);
  t.equal(stop.run.code, 0);
  await eventually(() => !alive(agentPid), 10_000, 'the agent to be gone');
});
