import t from 'tap';
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
