import t from 'tap';
import { join } from 'node:path';
import { agentSandbox, eventually, shellScript } from '../helpers/agent.js';
import { gitSync, LAZY, lazy } from '../helpers/env.js';
import { background } from '../helpers/procs.js';

t.test('pair: a session in the worktree, then back to blocked with a summary turn', async (t) => {
  const { sb, l } = await agentSandbox();
  t.teardown(sb.cleanup);
  const id = await l.create('pair on it', '--accept', 'done');
  await l('start', id);
  await l('wait', id, '--timeout', '30');
  const shell = shellScript(
    sb,
    'pair-shell.sh',
    'echo "pairing in $(pwd) for $LAZY_TASK_ID" > paired.txt\ngit add paired.txt && git commit -q -m "human: paired"\n',
  );
  const r = await lWith(sb, { SHELL: shell })('pair', id, '--json');
  t.equal(r.code, 0, r.stderr);
  const v = JSON.parse(r.stdout);
  t.equal(v.task.status, 'blocked', 'pairing ends back in blocked');
  t.equal(v.commits, 1);
  t.same(
    v.task.changelog.slice(-2).map((c: any) => c.trigger),
    ['pair', 'pair_end'],
  );
  t.match(v.task.turns.at(-1).content, /Pairing session ended \(exit 0\): 1 commit\(s\) made/);
  t.match(gitSync(sb.dir, sb.env, ['log', '-1', '--format=%s', `lazy/${id}`]), /human: paired/);
});

t.test('the stale pairing sweep parks a task whose pairing process died', async (t) => {
  const { sb, l } = await agentSandbox();
  t.teardown(sb.cleanup);
  const id = await l.create('abandoned pairing', '--accept', 'done');
  await l('start', id);
  await l('wait', id, '--timeout', '30');
  const shell = shellScript(sb, 'slow-shell.sh', 'sleep 30\n');
  const child = background(process.execPath, [LAZY, 'pair', id], {
    cwd: sb.dir,
    env: { ...sb.env, SHELL: shell, FAKE_STATE: join(sb.home, 'x') },
    stdio: 'ignore',
    detached: true,
  });
  await eventually(async () => (await l.json('show', id)).value.status === 'pairing', 20000, 'pairing');
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
    5000,
    'pair process death',
  );
  t.equal((await l('list')).code, 0);
  const v = (await l.json('show', id)).value;
  t.equal(v.status, 'blocked', 'reconcile moved it out of pairing');
  t.equal(v.changelog.at(-1).trigger, 'stale_pairing');
  t.equal(v.changelog.at(-1).actor, 'system');
});

t.test('config: shared settings in refs/lazy/config, per-clone overrides with --local', async (t) => {
  const { sb, l } = await agentSandbox();
  t.teardown(sb.cleanup);
  t.equal((await l.json('config', 'get', 'agent')).value.value, 'fake');
  t.match(
    gitSync(sb.dir, sb.env, ['show', 'refs/lazy/config:config.yaml']),
    /agent: fake/,
    'shared config is YAML in git',
  );
  t.match(
    gitSync(sb.dir, sb.env, ['log', '-1', '--format=%s', 'refs/lazy/config']),
    /lazy: config set/,
    'and versioned',
  );
  await l('config', 'set', 'agent', 'claude', '--local');
  const got = (await l.json('config', 'get', 'agent')).value;
  t.same(got, { key: 'agent', value: 'claude', source: 'local' }, 'local overrides shared');
  t.match(
    gitSync(sb.dir, sb.env, ['show', 'refs/lazy/config:config.yaml']),
    /agent: fake/,
    'the shared value is untouched',
  );
  await l('config', 'unset', 'agent', '--local');
  t.equal((await l.json('config', 'get', 'agent')).value.value, 'fake');
  await l('config', 'set', 'protected', 'config/**, *.pem');
  t.same((await l.json('config', 'get', 'protected')).value.value, ['config/**', '*.pem'], 'lists are comma-separated');
  const list = (await l.json('config', 'list')).value;
  t.ok(list.some((c: any) => c.key === 'agents.fake.command'));
  const bad = await l.json('config', 'set', 'nonsense', 'x');
  t.equal(bad.run.code, 2);
  const badInt = await l.json('config', 'set', 'watchdog_ms', 'soon');
  t.equal(badInt.run.code, 2);
  const none = await l.json('config', 'list');
  t.type(none.value, Array);
});

function lWith(sb: any, env: NodeJS.ProcessEnv) {
  return (...args: string[]) =>
    lazy(args, { cwd: sb.dir, env: { ...sb.env, FAKE_STATE: join(sb.home, 'fake-state'), ...env } });
}
