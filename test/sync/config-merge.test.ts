import t from 'tap';
import { cli, gitSync, type Sandbox } from '../helpers/env.js';
import { team } from '../helpers/team.js';
import { plantTree } from '../helpers/plant.js';

// A config merge keeps dotted agent names whole and says why it refuses a remote config.

const git = (sb: Sandbox, ...args: string[]) => gitSync(sb.dir, sb.env, args).trim();

t.test('agent names with a dot: config set, merge and list agree; a refused config says why', async (t) => {
  const tm = team(2);
  t.teardown(tm.cleanup);
  const a = cli(tm.clones[0]!);
  const b = cli(tm.clones[1]!);
  const set = await a.json('config', 'set', 'agents.my.agent.command', 'echo hi');
  t.equal(set.run.code, 0, 'a dotted agent name can be set');
  t.equal((await a.json('config', 'get', 'agents.my.agent.command')).value.value, 'echo hi');
  await a('push');
  await b('pull');
  // Both sides change the config: the pull must merge, not refuse.
  await a('config', 'set', 'agents.my.agent.args', 'fast');
  await a('push');
  await b('config', 'set', 'agent', 'my.agent');
  const p = await b.json('pull');
  t.equal(p.value.config, 'merged', 'the config merges');
  t.notOk(p.value.config_rejected);
  const merged = git(tm.clones[1]!, 'show', 'refs/lazy/config:config.yaml');
  t.match(merged, /^ {2}"?my\.agent"?:$/m, 'the dotted name is kept whole');
  t.match(merged, /^ {4}command: echo hi$/m);
  t.match(merged, /^ {4}args: fast$/m);
  t.ok((await b.json('config', 'list')).value.some((v: any) => v.key === 'agents.my.agent.args'));

  // A remote config that fails its schema is refused with the key and the reason.
  const seed = tm.clones[0]!;
  const parent = git(seed, 'rev-parse', 'refs/lazy/config');
  plantTree(seed, 'refs/lazy/config', { 'config.yaml': 'watchdog_ms: 5\n' }, parent);
  git(seed, 'push', '-q', 'origin', 'refs/lazy/config');
  const r = await b.json('pull');
  t.equal(r.value.config, 'rejected');
  t.match(r.value.config_rejected.reason, /fails the config schema at \/watchdog_ms: must be >= 100/);
  t.equal(r.value.config_rejected.details.path, '/watchdog_ms');
  t.match((await b('pull')).stdout, /rejected config: .*\/watchdog_ms/);
});
