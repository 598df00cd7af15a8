import t from 'tap';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli, lazy, sandbox } from '../helpers/env.js';
import { team } from '../helpers/team.js';
import { FAKE_COMMAND } from '../helpers/agent.js';

// lib/ops/config.ts in this process: settings in layers as git's are, each winning over the one
// before: user ($XDG_CONFIG_HOME/lazy/config.yaml) < shared (refs/lazy/config) < --local < environment.

t.test('each layer wins over the one before; get names the layer; set --user writes the user file', async (t) => {
  const sb = sandbox();
  t.teardown(sb.cleanup);
  const xdg = join(sb.home, 'xdg');
  const l = cli(sb, { XDG_CONFIG_HOME: xdg });
  const got = async (key: string, env: NodeJS.ProcessEnv = {}) =>
    (await cli(sb, { XDG_CONFIG_HOME: xdg, ...env }).json('config', 'get', key)).value;

  t.equal((await l('config', 'set', '--user', 'agent', 'mine')).code, 0);
  t.equal((await l('config', 'set', '--user', 'watchdog_ms', '7000')).code, 0);
  t.match(readFileSync(join(xdg, 'lazy', 'config.yaml'), 'utf8'), /agent: mine/, 'the user file, in XDG_CONFIG_HOME');
  t.same(await got('agent'), { key: 'agent', value: 'mine', origin: 'user' });
  await l('config', 'set', 'agent', 'team');
  t.same(await got('agent'), { key: 'agent', value: 'team', origin: 'shared' }, 'shared wins over user');
  t.same(await got('watchdog_ms'), { key: 'watchdog_ms', value: 7000, origin: 'user' }, 'a key only the user sets');
  await l('config', 'set', '--local', 'agent', 'here');
  t.same(await got('agent'), { key: 'agent', value: 'here', origin: 'local' }, 'local wins over shared');
  t.same(
    await got('agent', { LAZY_AGENT: 'now' }),
    { key: 'agent', value: 'now', origin: 'env' },
    'LAZY_AGENT wins over everything',
  );

  // Without XDG_CONFIG_HOME the user file is ~/.config/lazy/config.yaml.
  const plain = cli(sb);
  await plain('config', 'set', '--user', 'mcp', 'false');
  t.match(readFileSync(join(sb.home, '.config', 'lazy', 'config.yaml'), 'utf8'), /mcp: false/);
  t.same((await plain.json('config', 'get', 'mcp')).value, { key: 'mcp', value: false, origin: 'user' });
  t.same(
    (await l.json('config', 'get', 'mcp')).value,
    { key: 'mcp', value: true, origin: 'default' },
    'the other user file does not set mcp: its default',
  );

  // As git config --global: the user's file needs no repository.
  const away = await lazy(['config', 'set', '--user', 'retry_base_ms', '250', '--json'], { cwd: sb.home, env: sb.env });
  t.equal(away.code, 0, away.stderr);
  t.same(JSON.parse(away.stdout), { key: 'retry_base_ms', value: 250, origin: 'user' });
  t.equal((await plain('config', 'get', 'retry_base_ms')).stdout, '250\n');
  t.equal((await lazy(['config', 'get', 'agent'], { cwd: sb.home, env: sb.env })).code, 2, 'reading needs one');
});

t.test(
  'config get prints the bare value, the default when none is set, and nothing with exit 1 when unset, as git config does',
  async (t) => {
    const sb = sandbox();
    t.teardown(sb.cleanup);
    const l = cli(sb);
    await l('config', 'set', 'agent', 'claude');
    await l('config', 'set', 'protected', 'config/**, *.pem');
    await l('config', 'set', 'watchdog_ms', '5000');
    t.same(await l('config', 'get', 'agent'), { code: 0, stdout: 'claude\n', stderr: '', signal: null });
    t.equal((await l('config', 'get', 'protected')).stdout, 'config/**,*.pem\n', 'a list as config set takes it');
    t.equal((await l('config', 'get', 'watchdog_ms')).stdout, '5000\n');
    t.same(
      await l('config', 'get', 'stop_grace_ms'),
      { code: 0, stdout: '10000\n', stderr: '', signal: null },
      'a default',
    );
    t.same(
      (await l.json('config', 'get', 'work.lease_seconds')).value,
      { key: 'work.lease_seconds', value: 300, origin: 'default' },
      '--json names it the default',
    );
    const unset = await l('config', 'get', 'forge.pr_command');
    t.same([unset.code, unset.stdout], [1, ''], 'unset, with no default: exit 1, nothing on stdout');
    const json = await l.json('config', 'get', 'forge.pr_command');
    t.equal(json.run.code, 1);
    t.same(json.value, { key: 'forge.pr_command', value: null, origin: null }, '--json: the document, value null');
    t.equal((await l('config', 'get', 'nonsense')).code, 2, 'an unknown key is a usage error, not unset');
  },
);

t.test('config list --show-origin: every layer, where it lives, shadowed values marked', async (t) => {
  const sb = sandbox();
  t.teardown(sb.cleanup);
  const xdg = join(sb.home, 'xdg');
  const l = cli(sb, { XDG_CONFIG_HOME: xdg, LAZY_AGENT: 'now' });
  await l('config', 'set', '--user', 'agent', 'mine');
  await l('config', 'set', 'agent', 'team');
  await l('config', 'set', '--local', 'agent', 'here');
  await l('config', 'set', '--user', 'retry_base_ms', '50');
  const rows = (await l.json('config', 'list', '--show-origin')).value;
  t.same(
    rows.filter((r: any) => r.key === 'agent').map((r: any) => [r.origin, r.value, !!r.shadowed]),
    [
      ['user', 'mine', true],
      ['shared', 'team', true],
      ['local', 'here', true],
      ['env', 'now', false],
    ],
    'lowest layer first; only the top one is in effect',
  );
  const where = Object.fromEntries(rows.map((r: any) => [r.origin, r.where]));
  t.same(where, {
    user: join(xdg, 'lazy', 'config.yaml'),
    shared: 'refs/lazy/config',
    local: join(sb.dir, '.git', 'lazy', 'config.yaml'),
    env: 'LAZY_AGENT',
  });
  t.same(
    rows.find((r: any) => r.key === 'retry_base_ms'),
    { key: 'retry_base_ms', value: 50, origin: 'user', where: join(xdg, 'lazy', 'config.yaml') },
    'a value nothing shadows is not marked',
  );
  const text = (await l('config', 'list', '--show-origin')).stdout.split('\n');
  t.ok(text.includes(`user:${join(xdg, 'lazy', 'config.yaml')}\tagent = "mine"  [shadowed]`), text.join('\n'));
  t.ok(text.includes('env:LAZY_AGENT\tagent = "now"'));
  const plain = (await l.json('config', 'list')).value;
  t.same(
    plain.map((r: any) => [r.key, r.value, r.origin]),
    [
      ['agent', 'now', 'env'],
      ['retry_base_ms', 50, 'user'],
    ],
    'without --show-origin: what is in effect, once per key',
  );
  t.match((await l('config', 'list')).stdout, /agent = "now" {2}\[env\]/);
});

t.test('a user file that fails its schema is named and ignored; the rest works', async (t) => {
  const sb = sandbox();
  t.teardown(sb.cleanup);
  const l = cli(sb);
  mkdirSync(join(sb.home, '.config', 'lazy'), { recursive: true });
  const file = join(sb.home, '.config', 'lazy', 'config.yaml');
  writeFileSync(file, 'agent: mine\nwatchdog_ms: soon\n');
  await l('config', 'set', 'retry_base_ms', '100');
  const r = await l.json('config', 'get', 'retry_base_ms');
  t.equal(r.run.code, 0, 'commands still run');
  t.equal(r.value.value, 100, 'the shared settings apply');
  t.match(r.run.stderr, `(user):${file} fails the config schema at /watchdog_ms`);
  t.match(r.run.stderr, /the user settings are ignored until it is fixed/);
  t.match((await l.json('config', 'get', 'agent')).value, { origin: 'default' }, 'nothing of the bad file is obeyed');
  t.equal((await l('create', 'still works')).code, 0);
  writeFileSync(file, 'agent: [not closed\n');
  t.match((await l('config', 'list')).stderr, /\(user\):.*config\.yaml is not valid YAML/, 'bad YAML is named too');
  const bad = await cli(sb, { LAZY_AGENT: 'no spaces allowed' }).json('config', 'get', 'agent');
  t.match(bad.run.stderr, /LAZY_AGENT: .*fails the config schema at \/agent.*: ignored/, 'a bad override is named');
  t.match(bad.value, { value: 'claude', origin: 'default' }, 'and not obeyed');
});

t.test('a user agent cannot launder an untrusted shared agent command', async (t) => {
  const tm = team(2);
  t.teardown(tm.cleanup);
  const a = cli(tm.clones[0]!);
  const b = cli(tm.clones[1]!);
  await a('config', 'set', 'agents.team.command', 'sh -c "echo from the team"');
  await a('config', 'set', 'agent', 'team');
  const id = await a.create('shared', '--accept', 'done');
  await a('push');
  await b('pull');
  await b('config', 'set', '--user', 'agents.team.command', FAKE_COMMAND);
  const refused = await b.json('start', id);
  t.equal(refused.run.code, 2, 'the shared command wins over the user one, and it is untrusted');
  t.equal(refused.value.error.code, 'untrusted_config');
  const rows = (await b.json('config', 'list', '--show-origin')).value.filter(
    (r: any) => r.key === 'agents.team.command',
  );
  t.same(
    rows.map((r: any) => [r.origin, !!r.shadowed, !!r.untrusted]),
    [
      ['user', true, false],
      ['shared', false, true],
    ],
  );
});
