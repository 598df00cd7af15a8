import { type Test } from 'tap';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { agentSandbox, eventually, shellScript, type AgentBox, reviewed, protectedBox } from '../helpers/agent.js';
import { gitSync, lazy, type Sandbox } from '../helpers/env.js';
import { plantTree, readTaskFiles } from '../helpers/plant.js';
import { concurrent } from '../helpers/concurrent.js';

// Issue 8, "what lands is what was reviewed": accept's guards. Protected files are judged
// by what the branch holds, accept merges only the reviewed head and no open subtask, and a
// git failure part-way leaves the task where it was.

const SECRET = 'config/secrets.env';
const onMain = (sb: Sandbox, file: string) =>
  gitSync(sb.dir, sb.env, ['ls-tree', '--name-only', 'main', '--', file]).trim() === file;
const branchHead = (sb: Sandbox, id: string) => gitSync(sb.dir, sb.env, ['rev-parse', `lazy/${id}`]).trim();
const wtOf = (sb: Sandbox, id: string) => join(sb.dir, '.lazy', 'worktrees', id);

/** The task parks with the protected file pending, and accept refuses to land it. */
async function assertHeldBack(t: Test, box: AgentBox, id: string): Promise<void> {
  const v = (await box.l.json('show', id)).value;
  t.equal(v.status, 'conflict', 'the task is in conflict');
  t.same(
    v.pending_violations.map((p: any) => p.file),
    [SECRET],
    'the protected file is pending',
  );
  const acc = await box.l.json('accept', id, '--yes');
  t.equal(acc.run.code, 4, 'accept --yes refuses');
  t.same(acc.value.error.details.pending_files, [SECRET]);
  t.notOk(onMain(box.sb, SECRET), 'the protected file did not land');
}

const test = concurrent(5);

test('a protected file committed before a crash is caught when the auto-resumed turn ends', async (t) => {
  const box = await protectedBox(t, 'protected-crash,succeed');
  const id = await box.l.create('crash after a protected commit', '--accept', 'done');
  await box.l('start', id);
  const w = await box.l.json('wait', id, '--timeout', '60');
  t.equal(w.run.code, 0, w.run.stdout.slice(0, 300));
  t.ok(
    w.value.task.changelog.some((c: any) => c.trigger === 'auto_resume'),
    'the crashed turn was auto-resumed',
  );
  t.equal(box.invocations().length, 2);
  await assertHeldBack(t, box, id);
});

test('a protected file committed before the breaker tripped is caught after lazy resume', async (t) => {
  const box = await protectedBox(t, 'protected-crash,crash,crash,succeed');
  const id = await box.l.create('crash three times', '--accept', 'done');
  await box.l('start', id);
  await eventually(
    async () => {
      const v = (await box.l.json('show', id)).value;
      return v.status === 'interrupted' && v.consecutive_interruptions >= 3;
    },
    60_000,
    'the breaker',
  );
  const r = await box.l.json('resume', id);
  t.equal(r.run.code, 0, r.run.stdout.slice(0, 300));
  t.equal((await box.l('wait', id, '--timeout', '60')).code, 0);
  await assertHeldBack(t, box, id);
});

test('a protected file committed before lazy stop is caught after lazy resume', async (t) => {
  const box = await protectedBox(t, 'protected-hang,succeed');
  const id = await box.l.create('stopped after a protected commit', '--accept', 'done');
  await box.l('start', id);
  await eventually(
    () => {
      try {
        return gitSync(box.sb.dir, box.sb.env, ['ls-tree', '--name-only', '-r', `lazy/${id}`]).includes(SECRET);
      } catch {
        return false;
      }
    },
    20_000,
    'the protected commit',
  );
  t.equal((await box.l('stop', id)).code, 0);
  t.equal((await box.l.json('show', id)).value.status, 'interrupted');
  t.equal((await box.l('resume', id)).code, 0);
  t.equal((await box.l('wait', id, '--timeout', '60')).code, 0);
  await assertHeldBack(t, box, id);
  const ok = await box.l.json('accept', id, '--yes', '--revert-file', SECRET);
  t.equal(ok.run.code, 0, ok.run.stdout.slice(0, 300));
  t.notOk(onMain(box.sb, SECRET), 'a revert keeps it off main');
  t.ok(onMain(box.sb, 'work-2.txt'), 'the rest of the work lands');
});

test('accept checks the squash against the protected globs whatever the status says', async (t) => {
  const box = await agentSandbox();
  t.teardown(box.sb.cleanup);
  box.scenario('protected');
  const id = await box.l.create('no protection yet', '--accept', 'done');
  await box.l('start', id);
  const w = await box.l.json('wait', id, '--timeout', '30');
  t.equal(w.value.task.status, 'blocked', 'nothing was protected while the turn ran');
  t.equal((await box.l('config', 'set', 'protected', 'config/**')).code, 0);
  const refused = await box.l.json('accept', id, '--yes');
  t.equal(refused.run.code, 4, 'the squash carries an undecided protected path');
  t.same(refused.value.error.details.pending_files, [SECRET]);
  t.notOk(onMain(box.sb, SECRET));
  const v = (await box.l.json('show', id)).value;
  t.equal(v.status, 'conflict', 'what accept found is recorded: the task is in conflict');
  t.same(
    v.pending_violations.map((p: any) => p.file),
    [SECRET],
  );
  const ok = await box.l.json('accept', id, '--yes', '--approve-file', SECRET);
  t.equal(ok.run.code, 0, ok.run.stdout.slice(0, 300));
  t.ok(onMain(box.sb, SECRET), 'an approved file lands');
});

test('a commit the agent made during a read-only ask is not merged under the older review', async (t) => {
  const box = await agentSandbox();
  t.teardown(box.sb.cleanup);
  box.scenario('succeed');
  const id = await box.l.create('ask writes', '--accept', 'done');
  await box.l('start', id);
  await box.l('wait', id, '--timeout', '30');
  const reviewed = branchHead(box.sb, id);
  const asked = await box.l.json('ask', id, '-m', 'what did you do?');
  t.equal(asked.run.code, 0, asked.run.stdout.slice(0, 300));
  const moved = branchHead(box.sb, id);
  t.not(moved, reviewed, 'the command agent committed during the ask');
  const show = await box.l('show', id);
  t.match(show.stdout, new RegExp(`at ${reviewed.slice(0, 10)}`), 'show still presents the older review');
  const refused = await box.l.json('accept', id, '--yes');
  t.equal(refused.run.code, 4, 'accept refuses a head nobody reviewed');
  t.equal(refused.value.error.code, 'unreviewed_head');
  t.equal(refused.value.error.details.reviewed_head, reviewed);
  t.equal(refused.value.error.details.branch_head, moved);
  t.match(refused.value.error.message, new RegExp(`${reviewed.slice(0, 10)}.*${moved.slice(0, 10)}.*lazy unblock`));
  t.notOk(onMain(box.sb, 'work-2.txt'), 'the ask commit did not land');
  t.equal((await box.l.json('show', id)).value.status, 'blocked', 'a refusal changes nothing');
  // A new turn reviews the branch as it is; then it lands.
  await box.l('unblock', id, '-m', 'keep what you did');
  await box.l('wait', id, '--timeout', '30');
  const ok = await box.l.json('accept', id, '--yes');
  t.equal(ok.run.code, 0, ok.run.stdout.slice(0, 300));
  t.ok(onMain(box.sb, 'work-2.txt'));
});

test('a commit left behind after the turn ended is not merged', async (t) => {
  const box = await agentSandbox();
  const { sb, l } = box;
  t.teardown(sb.cleanup);
  const id = await l.create('background commit', '--accept', 'done');
  await l('start', id);
  await l('wait', id, '--timeout', '30');
  const reviewed = branchHead(sb, id);
  const wt = wtOf(sb, id);
  gitSync(wt, sb.env, ['commit', '-q', '--allow-empty', '-m', 'a background process commits later']);
  const refused = await l.json('accept', id, '--yes');
  t.equal(refused.run.code, 4);
  t.equal(refused.value.error.details.unreviewed_count, 1);
  t.match(refused.value.error.message, /reset --hard/, 'says how to drop the unreviewed commit');
  t.equal(gitSync(sb.dir, sb.env, ['log', '-1', '--format=%s', 'main']).trim(), 'initial commit', 'main did not move');
  gitSync(wt, sb.env, ['reset', '-q', '--hard', reviewed]);
  const ok = await l.json('accept', id, '--yes');
  t.equal(ok.run.code, 0, ok.run.stdout.slice(0, 300));
});

test("a subtask's accepted squash on the parent's branch counts as reviewed; nothing else does", async (t) => {
  const box = await agentSandbox();
  const { sb, l } = box;
  t.teardown(sb.cleanup);
  const parent = await l.create('parent', '--accept', 'done');
  await l('start', parent);
  await l('wait', parent, '--timeout', '30');
  const child = await l.create('child', '--parent', parent, '--accept', 'done');
  await l('start', child);
  await l('wait', child, '--timeout', '30');
  t.equal((await l('accept', child, '--yes')).code, 0, 'the child lands on the parent branch');
  const landed = branchHead(sb, parent);
  gitSync(wtOf(sb, parent), sb.env, [
    'commit',
    '-q',
    '--allow-empty',
    '-m',
    'Accept task aaaaaaaa: not a real subtask',
  ]);
  const refused = await l.json('accept', parent, '--yes');
  t.equal(refused.run.code, 4, 'a commit that only looks like a subtask accept is refused');
  t.equal(refused.value.error.details.unreviewed_count, 2);
  gitSync(wtOf(sb, parent), sb.env, ['reset', '-q', '--hard', landed]);
  const ok = await l.json('accept', parent, '--yes');
  t.equal(ok.run.code, 0, ok.run.stdout.slice(0, 300));
  t.ok(onMain(sb, 'work-1.txt') && onMain(sb, 'work-2.txt'), "the parent lands with the child's work");
});

test('a pairing session is the review of what it leaves on the branch, protected files included', async (t) => {
  const box = await protectedBox(t, 'succeed');
  const { sb, l } = box;
  const id = await l.create('pair then accept', '--accept', 'done');
  await l('start', id);
  await l('wait', id, '--timeout', '30');
  const shell = shellScript(
    sb,
    'pair-shell.sh',
    'mkdir -p config && echo paired > paired.txt && echo T=1 > config/secrets.env\ngit add -A && git commit -q -m "human: paired"\n',
  );
  const r = await lazy(['pair', id, '--json'], { cwd: sb.dir, env: { ...sb.env, SHELL: shell } });
  t.equal(r.code, 0, r.stderr);
  const v = JSON.parse(r.stdout).task;
  t.equal(v.status, 'conflict', 'the protected file the pairing committed is pending');
  t.equal(v.turns.at(-1).details.review.head, branchHead(sb, id), 'the pairing recorded the head it left');
  const ok = await l.json('accept', id, '--yes', '--approve-file', SECRET);
  t.equal(ok.run.code, 0, ok.run.stdout.slice(0, 300));
  t.ok(onMain(sb, 'paired.txt') && onMain(sb, SECRET), 'the paired work lands once decided');
});

test('a stored review head that is not a commit id never reaches git', async (t) => {
  const box = await agentSandbox();
  const { sb, l } = box;
  t.teardown(sb.cleanup);
  const id = await l.create('planted review head', '--accept', 'done');
  await l('start', id);
  await l('wait', id, '--timeout', '30');
  const head = branchHead(sb, id);
  const files = readTaskFiles(sb, id);
  const turn = Object.keys(files)
    .filter((p) => p.startsWith('turns/') && files[p]!.includes(head))
    .at(-1)!;
  files[turn] = files[turn]!.replace(new RegExp(`"?${head}"?`), JSON.stringify(`--output=${join(sb.home, 'pwned')}`));
  const ref = `refs/lazy/tasks/${id}`;
  plantTree(sb, ref, files, gitSync(sb.dir, sb.env, ['rev-parse', ref]).trim());
  const r = await l.json('accept', id, '--yes');
  t.equal(r.run.code, 4, 'no review covers the branch');
  t.same(
    readdirSync(sb.home).filter((f) => f.startsWith('pwned')),
    [],
    'git wrote no file',
  );
});

test('a git failure in the middle of accept does not leave the task in merging', async (t) => {
  const box = await agentSandbox();
  const { sb, l } = box;
  t.teardown(sb.cleanup);
  const id = await reviewed(box);
  // The target's checkout is in the middle of a conflicted merge: git stash refuses.
  gitSync(sb.dir, sb.env, ['checkout', '-q', '-b', 'side']);
  writeFileSync(join(sb.dir, 'README.md'), 'side\n');
  gitSync(sb.dir, sb.env, ['commit', '-q', '-am', 'side']);
  gitSync(sb.dir, sb.env, ['checkout', '-q', 'main']);
  writeFileSync(join(sb.dir, 'README.md'), 'main\n');
  gitSync(sb.dir, sb.env, ['commit', '-q', '-am', 'main']);
  spawnSync('git', ['merge', 'side'], { cwd: sb.dir, env: sb.env, stdio: 'ignore' });
  t.ok(existsSync(join(sb.dir, '.git', 'MERGE_HEAD')), 'a conflicted merge');
  const r = await l.json('accept', id, '--yes');
  t.not(r.run.code, 0, 'the accept fails');
  const v = (await l.json('show', id)).value;
  t.equal(v.status, 'blocked', 'and the task is back where it was');
  t.same(
    v.changelog.slice(-2).map((c: any) => c.status),
    ['merging', 'blocked'],
  );
});

test('ask keeps protected files gated and commits nothing', async (t) => {
  const box = await agentSandbox({ settings: { protected: 'config/**' } });
  const { sb, l, scenario } = box;
  t.teardown(sb.cleanup);
  scenario('succeed,protected');
  const id = await reviewed(box);
  const a = await l.json('ask', id, '-m', 'what would you change?');
  t.equal(a.value.task.status, 'conflict', 'an ask that touched a protected file parks as conflict');
  t.same(
    a.value.task.pending_violations.map((p: any) => p.file),
    ['config/secrets.env'],
  );
  t.equal((await l.json('accept', id, '--yes')).run.code, 4, 'and accept wants a decision');
});

test('a parent with open subtasks cannot be accepted; a bad agent name is a usage error', async (t) => {
  const box = await agentSandbox();
  const { sb, l } = box;
  t.teardown(sb.cleanup);
  const parent = await reviewed(box, 'parent');
  const child = await l.create('child', '--parent', parent);
  const r = await l.json('accept', parent, '--yes');
  t.equal(r.run.code, 4);
  t.same(r.value.error.details.children, [child]);
  await l('close', child);
  t.equal((await l.json('accept', parent, '--yes')).run.code, 0, 'once the child is closed the parent merges');
  t.equal((await l.json('edit', child, '--agent', 'bad name')).run.code, 4, 'a terminal task is not editable');
  const other = await l.create('x');
  t.equal((await l.json('edit', other, '--agent', 'bad name')).run.code, 2);
});
