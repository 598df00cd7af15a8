import t from 'tap';
import { join } from 'node:path';
import { sandbox, cli, gitSync } from '../helpers/env.js';

// archive.on_push: false leaves archiving to `lazy archive`, so a push sheds no task refs on the remote (a team
// whose clones are not all on a release that knows the archive); by default a push archives what is due first.

const taskRefs = (dir: string, env: NodeJS.ProcessEnv) =>
  gitSync(dir, env, ['for-each-ref', '--format=%(refname)', 'refs/lazy/tasks/']).trim().split('\n').filter(Boolean);

t.test('push archives what is due unless archive.on_push is false', async (t) => {
  const sb = sandbox();
  t.teardown(sb.cleanup);
  const l = cli(sb);
  const remote = join(sb.home, '..', 'remote.git');
  gitSync(sb.dir, sb.env, ['init', '-q', '--bare', remote]);
  gitSync(sb.dir, sb.env, ['remote', 'add', 'origin', remote]);
  t.equal((await l.spawn('__bench-seed', '3', '--complete', '2', '--days-ago', '40')).code, 0);
  t.equal((await l.spawn('config', 'set', 'archive.on_push', 'false')).code, 0);

  const kept = await l.spawn('push', '--json');
  t.equal(kept.code, 0, kept.stderr);
  t.same(JSON.parse(kept.stdout).archived ?? [], [], 'nothing archived by the push');
  t.equal(taskRefs(sb.dir, sb.env).length, 3, 'every task ref stays live here');
  t.equal(taskRefs(remote, sb.env).length, 3, 'and on the remote');

  t.equal((await l.spawn('config', 'set', 'archive.on_push', 'true')).code, 0);
  const shed = await l.spawn('push', '--json');
  t.equal(shed.code, 0, shed.stderr);
  t.equal(JSON.parse(shed.stdout).archived.length, 2, 'the default: the push archives the two finished tasks');
  t.equal(taskRefs(remote, sb.env).length, 1, 'and the remote sheds their refs');
});
