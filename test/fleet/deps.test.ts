import t from 'tap';
import { cli, sandbox } from '../helpers/env.js';
import { DEFAULT_LEASE_SECONDS, leaseMsOf } from '../../lib/fleet/deps.js';

// work.lease_seconds: a whole number of seconds (default 300), shared or per clone, validated.

t.test('work.lease_seconds is set, read and validated like every setting', async (t) => {
  const sb = sandbox('lazy-lease-config');
  t.teardown(sb.cleanup);
  const l = cli(sb);
  t.equal(leaseMsOf({}), DEFAULT_LEASE_SECONDS * 1000, 'default 300 s');
  t.equal(DEFAULT_LEASE_SECONDS, 300);
  t.equal((await l('config', 'set', 'work.lease_seconds', '42')).code, 0);
  const got = await l.json('config', 'get', 'work.lease_seconds');
  t.equal(got.run.code, 0, got.run.stderr);
  t.match(JSON.stringify(got.value), /42/);
  t.equal(leaseMsOf({ work: { lease_seconds: 42 } }), 42_000);
  t.equal((await l('config', 'set', 'work.lease_seconds', 'soon')).code, 2, 'a whole number only');
  t.not((await l('config', 'set', 'work.lease_seconds', '0')).code, 0, 'at least one second');
  t.equal((await l('config', 'unset', 'work.lease_seconds')).code, 0);
  const list = await l('config', 'list');
  t.notMatch(list.stdout, /work/, 'unset leaves no empty work section');
});
