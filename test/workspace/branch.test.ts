import { join } from 'node:path';
import { gitSync } from '../helpers/env.js';
import { agentSandbox, reviewed } from '../helpers/agent.js';
import { concurrent } from '../helpers/concurrent.js';

// The task branch and its base: a detached HEAD is named at start, a branch deleted
// outside lazy is reported, never silently recreated.

const codes = (r: any) => r.value.findings.map((f: any) => f.code);

const test = concurrent(2);

test('a task created on a detached HEAD says so at start, naming the commit', async (t) => {
  const box = await agentSandbox();
  const { sb, l } = box;
  t.teardown(sb.cleanup);
  gitSync(sb.dir, sb.env, ['checkout', '-q', '--detach']);
  const id = await l.create('detached', '--accept', 'done');
  const main = gitSync(sb.dir, sb.env, ['rev-parse', 'main']).trim();
  const r = await l('start', id);
  t.equal(r.code, 0, r.stderr);
  t.match(
    r.stderr,
    new RegExp(
      `warning: task ${id} was created on a detached HEAD.*from main at ${main.slice(0, 10)}.*accept merges it into main`,
    ),
  );
  t.notMatch(r.stdout, /detached/, 'on stderr only');
  await l('wait', id, '--timeout', '30');
});

test('a deleted lazy/<id> branch is reported, not silently recreated from the base', async (t) => {
  const box = await agentSandbox();
  const { sb, l } = box;
  t.teardown(sb.cleanup);
  const id = await reviewed(box);
  const head = gitSync(sb.dir, sb.env, ['rev-parse', `lazy/${id}`]).trim();
  gitSync(sb.dir, sb.env, ['worktree', 'remove', '--force', join(sb.dir, '.lazy', 'worktrees', id)]);
  gitSync(sb.dir, sb.env, ['branch', '-D', '-q', `lazy/${id}`]);
  const r = await l.json('unblock', id, '-m', 'more please');
  t.equal(r.run.code, 4);
  t.match(
    r.value.error.message,
    new RegExp(`branch lazy/${id} of task ${id} was deleted outside lazy.*git branch lazy/${id} ${head}`),
  );
  t.equal(gitSync(sb.dir, sb.env, ['branch', '--list', `lazy/${id}`]).trim(), '', 'not recreated from the base');
  t.equal((await l.json('show', id)).value.status, 'blocked', 'the task is unchanged');
  t.ok(codes(await l.json('doctor')).includes('branch_missing'), 'doctor reports it too');
});
