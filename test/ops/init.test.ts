import t from 'tap';
import { sandbox, cli, gitSync } from '../helpers/env.js';

// lazy init prepares the repository for lazy's refs.

t.test('init sets core.logAllRefUpdates=always, so refs a pull writes keep a reflog too', async (t) => {
  const sb = sandbox();
  t.teardown(sb.cleanup);
  const l = cli(sb);
  const r = await l('init');
  t.equal(r.code, 0);
  t.match(r.stdout, /set core\.logAllRefUpdates=always/);
  t.equal(gitSync(sb.dir, sb.env, ['config', 'core.logAllRefUpdates']).trim(), 'always');
  t.notMatch((await l('init')).stdout, /logAllRefUpdates/, 'rerunning changes nothing');
});
