import t from 'tap';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { cli, gitSync } from '../helpers/env.js';
import { team } from '../helpers/team.js';
import { PACKED_CREATES_MIN } from '../../lib/sync/apply.js';

// A pull that creates many task refs writes them packed (no loose file per ref), and the clone works on from there.

t.test('a first pull of many tasks leaves them packed; later writes, pulls and pushes go on as ever', async (t) => {
  const tm = team(2);
  t.teardown(tm.cleanup);
  const [sa, sb] = [tm.clones[0]!, tm.clones[1]!];
  const a = cli(sa);
  const b = cli(sb);
  const n = PACKED_CREATES_MIN + 20;
  t.equal((await a('__bench-seed', String(n))).code, 0);
  t.equal((await a('push')).code, 0);
  const p = await b.json('pull');
  t.equal(p.run.code, 0);
  t.equal(p.value.new.length, n, 'every task came');
  const loose = join(sb.dir, '.git', 'refs', 'lazy', 'tasks');
  t.same(existsSync(loose) ? readdirSync(loose) : [], [], 'no loose task ref was written');
  const listed = (await b.json('list')).value as { id: string }[];
  t.equal(listed.length, n);
  const id = listed[0]!.id;
  t.equal(gitSync(sb.dir, sb.env, ['fsck', '--connectivity-only', '--no-progress']).trim(), '');
  // The packed ref moves by compare-and-swap like any other, and travels back.
  t.equal((await b('comment', id, '-m', 'from b')).code, 0);
  t.equal((await b('push')).code, 0);
  const again = await a.json('pull');
  t.same(again.value.updated, [id]);
  const noop = await b.json('pull');
  t.equal(noop.value.unchanged, n, 'a second pull finds nothing to do');
  t.same(noop.value.new, []);
});
