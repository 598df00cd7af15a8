import t from 'tap';
import { writeFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { agentSandbox, eventually } from './helpers/agent.js';
import { cli, gitSync, SLOW_ACCEPT } from './helpers/env.js';
import { team } from './helpers/team.js';
import { plantTree, readTaskFiles, withId } from './helpers/plant.js';
import { background } from './helpers/procs.js';
import { spawnSync } from 'node:child_process';

// Each case here is a failure a review found; the test pins the fixed behaviour.

async function reviewed(box: Awaited<ReturnType<typeof agentSandbox>>, goal = 'work', extra: string[] = []) {
  const id = await box.l.create(goal, '--accept', 'done', ...extra);
  await box.l('start', id);
  await box.l('wait', id, '--timeout', '30');
  return id;
}

t.test('a killed re-accept is never mistaken for the earlier accept of the same task', async (t) => {
  const box = await agentSandbox();
  const { sb, l } = box;
  t.teardown(sb.cleanup);
  const id = await reviewed(box);
  await l('accept', id, '--yes');
  await l('reopen', id, '--reason', 'one more change');
  await l('unblock', id, '-m', 'more');
  await l('wait', id, '--timeout', '30');
  const branchTip = gitSync(sb.dir, sb.env, ['rev-parse', `lazy/${id}`]).trim();
  await new Promise<void>((res) => {
    const c = background(process.execPath, [SLOW_ACCEPT, '3000', 'accept', id, '--yes'], {
      cwd: sb.dir,
      env: sb.env,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    c.stdout.on('data', (d) => {
      if (String(d).includes('squash-merge')) c.kill('SIGKILL');
    });
    c.on('close', () => res());
  });
  const v = (await l.json('show', id)).value;
  t.equal(v.status, 'blocked', 'rolled back, not completed by the old squash commit');
  t.equal(
    gitSync(sb.dir, sb.env, ['rev-parse', `lazy/${id}`]).trim(),
    branchTip,
    'the new work is still on its branch',
  );
  t.ok(existsSync(join(sb.dir, '.lazy', 'worktrees', id)), 'and in its worktree');
  t.equal((await l.json('accept', id, '--yes')).run.code, 0, 'a fresh accept lands it');
});

t.test('a git failure in the middle of accept does not leave the task in merging', async (t) => {
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

t.test('ask keeps protected files gated and commits nothing', async (t) => {
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

t.test('two starts racing: one wins, and its turn stays findable by reconcile', async (t) => {
  const box = await agentSandbox();
  const { sb, l, scenario, invocations } = box;
  t.teardown(sb.cleanup);
  scenario('hang');
  const id = await l.create('race', '--accept', 'done');
  const [a, b] = await Promise.all([l.json('start', id), l.json('start', id)]);
  t.same([a.run.code, b.run.code].sort(), [0, 4], 'exactly one start succeeds');
  const winner = (a.run.code === 0 ? a : b).value.run.id;
  const marker = JSON.parse(readFileSync(join(sb.dir, '.git', 'lazy', 'active', `${id}.json`), 'utf8'));
  t.equal(marker.run, winner, "the loser never touched the winner's marker");
  await eventually(() => invocations().length === 1, 20000, 'the agent');
  await l('stop', id);
});

t.test('close commits uncommitted work instead of deleting it', async (t) => {
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

t.test('a parent with open subtasks cannot be accepted; a bad agent name is a usage error', async (t) => {
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

t.test('remote data can neither drive git options nor the terminal, nor bloat a pull', async (t) => {
  const tm = team(2);
  t.teardown(tm.cleanup);
  const [a, b] = tm.clones.map((c) => cli(c));
  const id = await a!.create('template');
  await a!('push');
  const seed = tm.clones[0]!;
  const files = readTaskFiles(seed, id);
  const plant = (bad: string, extra: Record<string, string>, edit = (s: string) => s) => {
    plantTree(seed, `refs/lazy/tasks/${bad}`, {
      ...files,
      'task.yaml': edit(withId(files['task.yaml']!, bad)),
      ...extra,
    });
    gitSync(seed.dir, seed.env, ['push', '-q', 'origin', `refs/lazy/tasks/${bad}`]);
    gitSync(seed.dir, seed.env, ['update-ref', '-d', `refs/lazy/tasks/${bad}`]);
  };
  const created = Object.keys(files).find((p) => p.startsWith('changelog/'))!;
  const createdName = created.split('/')[1]!;
  // A complete task whose "accepted commit" is a git option.
  plant('bad1000a', {
    [`changelog/0000000009-zzzzzzz1.yaml`]: `id: zzzzzzz1\nclock: 9\ntimestamp: "2026-01-01T00:00:00.000Z"\nactor: system\nfrom: backlog\nto: abandoned\ntrigger: close\nreason: x\ndetails:\n  commit: "--output=${tm.root}/PWNED"\n`,
  });
  // A goal that would clear the terminal.
  plant('bad2000a', {}, (s) => s.replace(/^goal: .*$/m, 'goal: "\\e]0;owned\\a\\e[2J goal"'));
  // A clock far beyond its history.
  plant('bad3000a', { [`changelog/${createdName}`]: files[created]! }, (s) =>
    s.replace(/^clock: 1$/m, 'clock: 1000000000000'),
  );
  // A blob far larger than any document.
  plant('bad4000a', { 'turns/0000000005-zzzzzzz2.yaml': 'x'.repeat(12 * 1024 * 1024) });
  const p = await b!.json('pull');
  t.equal(p.run.code, 0);
  t.ok(
    p.value.rejected.some((r: any) => r.id === 'bad3000a' && /Lamport clock/.test(r.reason)),
    'a runaway clock is refused',
  );
  t.ok(
    p.value.rejected.some((r: any) => r.id === 'bad4000a' && /larger than any document/.test(r.reason)),
    'a huge blob is refused without being read',
  );
  const diff = await b!.json('diff', 'bad1000a');
  t.notOk(existsSync(join(tm.root, 'PWNED')), 'a stored value never becomes a git option');
  t.equal(diff.run.code, 4);
  const list = await b!('list', '--all');
  t.notMatch(list.stdout, /\u001b/, 'no escape sequence reaches the terminal');
  t.match(list.stdout, /\\u001b\[2J goal/);
});

t.test('shared agent commands from a pull run only once this clone trusts them', async (t) => {
  const tm = team(2);
  t.teardown(tm.cleanup);
  const a = cli(tm.clones[0]!);
  const b = cli(tm.clones[1]!);
  const { FAKE_AGENT } = await import('./helpers/agent.js');
  await a('config', 'set', 'agents.team.command', `"${process.execPath}" "${FAKE_AGENT}"`);
  await a('config', 'set', 'agent', 'team');
  const id = await a.create('shared', '--accept', 'done');
  await a('push');
  await b('pull');
  const refused = await b.json('start', id);
  t.equal(refused.run.code, 2, 'an untrusted shared command is not run');
  t.equal(refused.value.error.code, 'untrusted_config');
  t.match((await b('config', 'list')).stdout, /agents\.team\.command = .*\[untrusted: lazy config trust\]/);
  await b('config', 'trust');
  t.equal((await b.json('start', id)).run.code, 0, 'trusted, it runs');
  await b('wait', id, '--timeout', '30');
  // The remote changes the command: it is untrusted again.
  await a('config', 'set', 'agents.team.command', 'sh -c "echo changed"');
  await a('push');
  await b('pull');
  const id2 = await b.create('second', '--accept', 'done');
  t.equal((await b.json('start', id2)).run.code, 2, 'a changed shared command needs trust again');
});
