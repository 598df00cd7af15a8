import t from 'tap';
import { join } from 'node:path';
import { agentSandbox, eventually, shellScript } from '../helpers/agent.js';
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

t.test('pair after stop: attention comes from the pairing session, not the stopped turn', async (t) => {
  const { sb, l, scenario, invocations } = await agentSandbox();
  t.teardown(sb.cleanup);
  scenario('hang');
  const id = await l.create('stop then pair', '--accept', 'done');
  await l('start', id);
  await eventually(() => invocations().length >= 1, 20000, 'the hanging agent');
  await l('stop', id);
  t.equal((await l.json('show', id)).value.attention.reason, 'stopped by the user');
  const shell = shellScript(sb, 'quick-shell.sh', 'exit 0\n');
  const r = await lWith(sb, { SHELL: shell })('pair', id, '--json');
  t.equal(r.code, 0, r.stderr);
  const v = (await l.json('show', id)).value;
  t.equal(v.status, 'blocked');
  t.equal(v.attention.kind, 'review');
  t.match(v.attention.reason, /^Pairing session ended \(exit 0\): 0 commit\(s\) made/, 'the latest session speaks');
  t.notMatch((await l('show', id)).stdout, /stopped by the user —|review: interrupted/, 'no stale attention in show');
});

function lWith(sb: any, env: NodeJS.ProcessEnv) {
  return (...args: string[]) =>
    lazy(args, { cwd: sb.dir, env: { ...sb.env, FAKE_STATE: join(sb.home, 'fake-state'), ...env } });
}
