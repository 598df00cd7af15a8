import t from 'tap';
import { agentSandbox } from '../helpers/agent.js';
import { gitSync } from '../helpers/env.js';

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
  t.same(got, { key: 'agent', value: 'claude', origin: 'local' }, 'local overrides shared');
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
