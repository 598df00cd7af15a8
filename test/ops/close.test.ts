import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gitSync } from '../helpers/env.js';
import { agentSandbox, reviewed } from '../helpers/agent.js';
import { concurrent } from '../helpers/concurrent.js';

// close keeps the work: uncommitted changes are committed to the kept branch, and a
// worktree that cannot be committed is kept, saying why.

const test = concurrent(2);

test('a stale index.lock is named when the auto-commit fails, and close keeps the work', async (t) => {
  const box = await agentSandbox();
  const { sb, l } = box;
  t.teardown(sb.cleanup);
  box.scenario('dirty-index-lock');
  const id = await l.create('locked', '--accept', 'done');
  await l('start', id);
  const w = await l.json('wait', id, '--timeout', '30');
  t.equal(w.value.task.status, 'blocked');
  const wt = join(sb.dir, '.lazy', 'worktrees', id);
  const lock = join(sb.dir, '.git', 'worktrees', id, 'index.lock');
  const risks = w.value.task.turns.at(-1).details?.risks ?? [];
  t.match(
    risks.join('\n'),
    new RegExp(`could not commit the work the agent left uncommitted: could not commit in ${wt}: ${lock} exists`),
  );
  const close = await l('close', id);
  t.equal(close.code, 0);
  t.match(close.stderr, new RegExp(`the worktree ${wt} was kept: .*index.lock exists`));
  t.ok(existsSync(join(wt, 'dirty-1.txt')), 'the uncommitted work was not removed with the worktree');
});

test('close commits uncommitted work instead of deleting it', async (t) => {
  const box = await agentSandbox();
  const { sb, l } = box;
  t.teardown(sb.cleanup);
  const id = await reviewed(box);
  writeFileSync(join(sb.dir, '.lazy', 'worktrees', id, 'notes.md'), 'unsaved thoughts\n');
  const r = await l.json('close', id);
  t.match(r.value.saved_commit, /^[0-9a-f]{40}$/);
  t.equal(
    gitSync(sb.dir, sb.env, ['show', `lazy/${id}:notes.md`]),
    'unsaved thoughts\n',
    'the work is on the kept branch',
  );
  t.equal(r.value.branch.deleted, false);
});
