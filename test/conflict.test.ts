import t from 'tap';
import { agentSandbox } from './helpers/agent.js';
import { gitSync } from './helpers/env.js';

// Protected files → conflict: derived from the pending violation set, decided file by file.

t.test('protected-file decisions across several turns', async (t) => {
  const box = await agentSandbox({ settings: { protected: 'config/**' } });
  const { sb, l, scenario } = box;
  t.teardown(sb.cleanup);
  scenario('protected,succeed,succeed,protected,protected');
  const id = await l.create('touch config', '--accept', 'done');
  await l('start', id);
  let v = (await l.json('wait', id, '--timeout', '30')).value;
  t.equal(v.status, 'conflict', 'a turn touching a protected path parks as conflict');
  t.same(
    v.pending_violations.map((p: any) => p.file),
    ['config/secrets.env'],
    'one violation per file',
  );
  t.equal(v.attention.kind, 'conflict');

  const noDecision = await l.json('unblock', id, '-m', 'go on');
  t.equal(noDecision.run.code, 4, 'unblock will not infer a decision');
  t.same(noDecision.value.error.details.pending_files, ['config/secrets.env']);
  t.equal((await l.json('accept', id, '--yes')).run.code, 4, 'neither will accept');

  // An ask (a turn that runs no permission check) never clears a pending file.
  const asked = await l.json('ask', id, '-m', 'what did you change?');
  t.equal(asked.value.task.status, 'conflict', 'ask restores conflict');
  t.same(
    asked.value.task.pending_violations.map((p: any) => p.file),
    ['config/secrets.env'],
  );

  const reverted = await l.json('unblock', id, '-m', 'do not touch secrets', '--revert-file', 'config/secrets.env');
  t.equal(reverted.run.code, 0, reverted.run.stdout);
  const log = gitSync(sb.dir, sb.env, ['log', '--format=%s', `lazy/${id}`]);
  t.match(
    log,
    /lazy: revert protected file config\/secrets\.env/,
    'a revert is a commit of its own on the task branch',
  );
  v = (await l.json('wait', id, '--timeout', '30')).value;
  t.equal(v.status, 'blocked', 'decided, and the next turn touched nothing protected');
  t.equal(
    gitSync(sb.dir, sb.env, ['ls-tree', '--name-only', `lazy/${id}`, 'config/']).trim(),
    '',
    'the file is gone from the branch',
  );

  await l('unblock', id, '-m', 'now you may change it');
  v = (await l.json('wait', id, '--timeout', '30')).value;
  t.equal(v.status, 'conflict', 'a new violation needs a new decision');
  await l('unblock', id, '-m', 'ok, keep it', '--approve-file', 'config/secrets.env');
  v = (await l.json('wait', id, '--timeout', '30')).value;
  t.equal(v.status, 'conflict', 'the fifth turn touched it again');
  t.equal(
    gitSync(sb.dir, sb.env, ['show', `lazy/${id}:config/secrets.env`]).trim(),
    'TOKEN=5',
    'the approved change was never reverted',
  );
  const named = await l.json('accept', id, '--yes', '--approve-all');
  t.equal(named.run.code, 0, named.run.stdout);
  t.equal(gitSync(sb.dir, sb.env, ['show', 'main:config/secrets.env']).trim(), 'TOKEN=5');
  const decisions = named.value.task.changelog.filter(
    (c: any) => c.trigger === 'accept' && c.from === 'conflict' && c.status === 'blocked',
  );
  t.equal(decisions.length, 1, 'accept recorded the decisions (conflict → blocked) before merging');
});

t.test('contradictory decisions are a usage error', async (t) => {
  const box = await agentSandbox({ settings: { protected: 'config/**' } });
  t.teardown(box.sb.cleanup);
  box.scenario('protected');
  const id = await box.l.create('x', '--accept', 'done');
  await box.l('start', id);
  await box.l('wait', id, '--timeout', '30');
  const r = await box.l.json(
    'unblock',
    id,
    '-m',
    'x',
    '--approve-file',
    'config/secrets.env',
    '--revert-file',
    'config/secrets.env',
  );
  t.equal(r.run.code, 2);
  t.equal((await box.l.json('resume', id)).run.code, 4, 'resume is not even available from conflict');
});
