import t from 'tap';
import { join } from 'node:path';
import { agentSandbox, shellScript } from '../helpers/agent.js';
import { gitSync, lazy } from '../helpers/env.js';

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

function lWith(sb: any, env: NodeJS.ProcessEnv) {
  return (...args: string[]) =>
    lazy(args, { cwd: sb.dir, env: { ...sb.env, FAKE_STATE: join(sb.home, 'fake-state'), ...env } });
}
