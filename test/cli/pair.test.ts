import t from 'tap';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { agentSandbox, eventually, shellScript } from '../helpers/agent.js';
import { LAZY } from '../helpers/env.js';
import { background } from '../helpers/procs.js';

// A real `lazy pair` process SIGKILLed: the next command's reconcile parks its task.

t.test('the stale pairing sweep parks a task whose pairing process died', async (t) => {
  const { sb, l } = await agentSandbox();
  t.teardown(sb.cleanup);
  const id = await l.create('abandoned pairing', '--accept', 'done');
  await l('start', id);
  await l('wait', id, '--timeout', '30');
  // A shell that never ends by itself: only the SIGKILL below ends this pairing.
  const shell = shellScript(sb, 'endless-shell.sh', `while [ ! -f '${join(sb.home, 'never')}' ]; do sleep 0.2; done\n`);
  const child = background(process.execPath, [LAZY, 'pair', id], {
    cwd: sb.dir,
    env: { ...sb.env, SHELL: shell, FAKE_STATE: join(sb.home, 'x') },
    stdio: 'ignore',
    detached: true,
  });
  await eventually(async () => (await l.json('show', id)).value.status === 'pairing', 60_000, 'pairing');
  process.kill(-child.pid!, 'SIGKILL');
  await eventually(
    () => {
      try {
        process.kill(child.pid!, 0);
        return false;
      } catch {
        return true;
      }
    },
    20_000,
    'pair process death',
  );
  t.equal((await l('list')).code, 0);
  const v = (await l.json('show', id)).value;
  t.equal(v.status, 'blocked', 'reconcile moved it out of pairing');
  t.equal(v.changelog.at(-1).trigger, 'stale_pairing');
  t.equal(v.changelog.at(-1).actor, 'system');
});

t.test('the stale pairing sweep ends the pairing shell the dead `lazy pair` left running', async (t) => {
  const { sb, l } = await agentSandbox();
  t.teardown(sb.cleanup);
  const id = await l.create('orphaned shell', '--accept', 'done');
  await l('start', id);
  await l('wait', id, '--timeout', '30');
  const pidFile = join(sb.home, 'shell.pid');
  const never = join(sb.home, 'never');
  t.teardown(() => writeFileSync(never, '')); // whatever happens, the shell ends with the test
  const shell = shellScript(
    sb,
    'orphaned-shell.sh',
    `echo $$ > '${pidFile}'\nwhile [ ! -f '${never}' ]; do sleep 0.2; done\n`,
  );
  const child = background(process.execPath, [LAZY, 'pair', id], {
    cwd: sb.dir,
    env: { ...sb.env, SHELL: shell },
    stdio: 'ignore',
    detached: true,
  });
  await eventually(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim() !== '', 60_000, 'the shell');
  const shellPid = Number(readFileSync(pidFile, 'utf8').trim());
  t.ok(running(shellPid), 'the pairing shell runs');
  process.kill(child.pid!, 'SIGKILL'); // `lazy pair` alone: its shell lives on in the worktree
  await eventually(() => !running(child.pid!), 20_000, 'pair process death');
  t.ok(running(shellPid), 'the shell outlived lazy pair');
  const r = await l.json('list');
  t.equal(r.run.code, 0);
  t.notOk(running(shellPid), 'the sweep ended the shell');
  const v = (await l.json('show', id)).value;
  t.equal(v.status, 'blocked', 'and parked the task');
  t.equal(v.changelog.at(-1).trigger, 'stale_pairing');
});

/** Alive and not a zombie (an orphan's new parent may reap it late). */
function running(pid: number): boolean {
  try {
    return !/^\S+ \(.*\) [ZX] /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}
