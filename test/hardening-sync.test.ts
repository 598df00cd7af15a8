import t from 'tap';
import { writeFileSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import { cli, gitSync, type Sandbox } from './helpers/env.js';
import { team, withFakeAgent } from './helpers/team.js';
import { plantTree, readTaskFiles, withId } from './helpers/plant.js';

// Issue 8, "what is untrusted is not obeyed": a pull may not switch safety off, a
// rewritten task history is refused, a push never spreads what a pull would refuse, and
// a config merge keeps dotted agent names and says why it refuses anything.

const git = (sb: Sandbox, ...args: string[]) => gitSync(sb.dir, sb.env, args).trim();
const remoteRefs = (remote: string) =>
  gitSync(remote, process.env, ['for-each-ref', '--format=%(refname)', 'refs/lazy/'])
    .trim()
    .split('\n')
    .filter(Boolean);
const held = (list: any[], key: string) => list.find((v) => v.key === key)?.held_back;

t.test('a pull cannot narrow protected or change a safety limit until config trust', async (t) => {
  const tm = team(2);
  t.teardown(tm.cleanup);
  const a = cli(tm.clones[0]!);
  const b = cli(tm.clones[1]!);
  await a('config', 'set', 'protected', 'config/**, *.pem');
  await a('config', 'set', 'watchdog_ms', '600000');
  await a('push');
  const first = await b.json('pull');
  t.equal(first.value.config, 'new');
  t.same(
    (await b.json('config', 'get', 'protected')).value.value,
    ['config/**', '*.pem'],
    'globs that arrive protect at once',
  );
  const wd = (await b.json('config', 'get', 'watchdog_ms')).value;
  t.equal(wd.value, null, 'a shared watchdog this clone never trusted is not applied');
  t.match(wd.held_back.reason, /safety limit .*lazy config trust/);
  await b('config', 'trust');
  t.equal((await b.json('config', 'get', 'watchdog_ms')).value.value, 600000, 'trusted: applied');

  // A hostile (or careless) clone drops a glob, changes another and weakens the limits.
  await a('config', 'set', 'protected', 'docs/**, *.key');
  await a('config', 'set', 'watchdog_ms', '100');
  await a('config', 'set', 'retry_transient_max', '100000');
  await a('push');
  const p = await b.json('pull');
  t.equal(p.value.config, 'updated');
  t.same(
    p.value.config_held.sort(),
    ['protected', 'retry_transient_max', 'watchdog_ms'],
    'the pull says what it holds back',
  );
  t.same(
    (await b.json('config', 'get', 'protected')).value.value.sort(),
    ['*.key', '*.pem', 'config/**', 'docs/**'],
    'dropped and changed globs stay protected; new ones apply',
  );
  t.equal((await b.json('config', 'get', 'watchdog_ms')).value.value, 600000, 'a lowered watchdog is held back');
  t.equal(
    (await b.json('config', 'get', 'retry_transient_max')).value.value,
    null,
    'a raised retry limit is held back',
  );
  const list = (await b.json('config', 'list')).value;
  t.match(
    held(list, 'protected').reason,
    /drops 'config\/\*\*', '\*\.pem' from protected/,
    'config list says what is held back and why',
  );
  t.same(held(list, 'watchdog_ms').in_effect, 600000);
  t.ok(held(list, 'retry_transient_max'));
  t.notOk(held(list, 'stop_grace_ms'), 'a limit nobody changed holds nothing back');
  t.match(
    (await b('config', 'list')).stdout,
    /protected = \["docs\/\*\*","\*\.key"\]  \[held back: .*drops 'config\/\*\*'.*in effect: /,
  );

  // What B obeys is what a turn is judged by: the agent's change to config/ is a violation.
  await withFakeAgent(tm.clones[1]!);
  const bp = cli(tm.clones[1]!, { FAKE_SCENARIO: 'protected' });
  const id = await bp.create('touch the secrets', '--accept', 'done');
  await bp('start', id);
  await bp('wait', id, '--timeout', '60');
  t.equal((await bp.json('show', id)).value.status, 'conflict', 'the dropped glob still parks the task');

  await b('config', 'trust');
  t.same(
    (await b.json('config', 'get', 'protected')).value.value,
    ['docs/**', '*.key'],
    'after trust the shared list is obeyed',
  );
  t.equal((await b.json('config', 'get', 'watchdog_ms')).value.value, 100);
  t.equal(
    (await b.json('config', 'list')).value.filter((v: any) => v.held_back).length,
    0,
    'nothing held back any more',
  );
});

t.test('settings this clone writes itself apply at once, and a pull cannot undo an arrival', async (t) => {
  const tm = team(2);
  t.teardown(tm.cleanup);
  const a = cli(tm.clones[0]!);
  const b = cli(tm.clones[1]!);
  await b('config', 'set', 'protected', 'secrets/**');
  await b('config', 'set', 'protected', 'other/**');
  t.same((await b.json('config', 'get', 'protected')).value.value, ['other/**'], 'your own narrowing is obeyed');
  await b('config', 'set', 'crash_window_ms', '5000');
  t.equal((await b.json('config', 'get', 'crash_window_ms')).value.value, 5000);
  await b('push');
  await a('pull');
  await a('config', 'set', 'protected', 'other/**, added/**');
  await a('push');
  await b('pull');
  await a('config', 'set', 'protected', 'other/**');
  await a('push');
  await b('pull');
  t.same(
    (await b.json('config', 'get', 'protected')).value.value.sort(),
    ['added/**', 'other/**'],
    'a glob that arrived cannot be taken away by a later pull',
  );
});

t.test('a remote task history with no common root is refused, reported and never merged', async (t) => {
  const tm = team(2);
  t.teardown(tm.cleanup);
  const a = cli(tm.clones[0]!);
  const b = cli(tm.clones[1]!);
  const id = await a.create('the real goal', '--prompt', 'the real prompt');
  const other = await a.create('an honest task');
  await a('push');
  await b('pull');
  await a('comment', other, '-m', 'ordinary change');
  // The attacker force-pushes a new root for the task with a higher clock.
  const files = readTaskFiles(tm.clones[0]!, id);
  files['task.yaml'] = files['task.yaml']!.replace(/^goal: .*$/m, 'goal: rm -rf everything').replace(
    /^clock: .*$/m,
    'clock: 900',
  );
  plantTree(tm.clones[0]!, `refs/lazy/tasks/${id}`, files);
  git(tm.clones[0]!, 'push', '-q', '--force', 'origin', `refs/lazy/tasks/${id}`, `refs/lazy/tasks/${other}`);
  const before = git(tm.clones[1]!, 'rev-parse', `refs/lazy/tasks/${id}`);
  const p = await b.json('pull');
  t.equal(p.run.code, 0, 'the pull succeeds for the rest');
  t.same(p.value.updated, [other], 'the honest change arrives');
  const r = p.value.rejected.find((x: any) => x.id === id);
  t.ok(r, 'the rewritten task is reported with its id');
  t.match(r.reason, /shares no commit with the local one/);
  t.equal(r.details.code, 'unrelated_history');
  t.equal(r.details.local_tip, before);
  t.match(p.run.stderr, /warning: the pull refused 1 remote ref/, 'and warned on stderr');
  t.equal(git(tm.clones[1]!, 'rev-parse', `refs/lazy/tasks/${id}`), before, 'the local task is untouched');
  t.equal((await b.json('show', id)).value.goal, 'the real goal');
  t.match(
    (await b('pull')).stdout,
    new RegExp(`rejected ${id}: the remote history of ${id} shares no commit`),
    'the text output names it too',
  );
});

t.test('push sends only what a pull would take, says what it skipped, and fails when it cannot deliver', async (t) => {
  const tm = team(2);
  t.teardown(tm.cleanup);
  const a = cli(tm.clones[0]!);
  const b = cli(tm.clones[1]!);
  const seed = tm.clones[0]!;
  const good = await a.create('good');
  const template = await a.create('template');
  await a('push');
  await a('comment', good, '-m', 'a change to push');
  const files = readTaskFiles(seed, template);
  const tree = git(seed, 'rev-parse', `refs/lazy/tasks/${template}^{tree}`);
  git(seed, 'update-ref', 'refs/lazy/tasks/bad00001', tree);
  plantTree(seed, 'refs/lazy/tasks/bad00002', {
    ...files,
    'task.yaml': withId(files['task.yaml']!, 'bad00002').replace(/^goal: .*$/m, 'goal: [1, 2]'),
  });
  plantTree(seed, 'refs/lazy/tasks/Not-A-Task', { ...files });
  plantTree(seed, 'refs/lazy/tasks/bad00003', {
    ...files,
    'task.yaml': withId(files['task.yaml']!, 'bad00003'),
    'turns/run-me.sh': 'rm -rf ~\n',
  });
  plantTree(seed, 'refs/lazy/junk', { 'x.txt': 'junk\n' });
  const blob = git(seed, 'hash-object', '-w', '--stdin');
  git(seed, 'update-ref', 'refs/lazy/tasks/bad00004', blob);
  plantTree(seed, 'refs/lazy/config', { 'config.yaml': 'watchdog_ms: 5\n' });
  const p = await a.json('push');
  t.equal(p.run.code, 6, 'a push that skipped refs exits non-zero');
  t.same(p.value.updated, [good], 'the valid change is delivered');
  const skipped = Object.fromEntries(p.value.skipped.map((s: any) => [s.id, s.reason]));
  t.match(skipped.bad00001, /points at a tree, not a commit/);
  t.match(skipped.bad00002, /fails the task schema at \/goal/);
  t.match(skipped.bad00003, /unexpected entry 'turns\/run-me\.sh'/);
  t.match(skipped.bad00004, /points at a blob, not a commit/);
  t.match(skipped['Not-A-Task'], /not a task id/);
  t.match(skipped['refs/lazy/junk'], /not a lazy ref/);
  t.match(
    skipped['refs/lazy/config'],
    /fails the config schema at \/watchdog_ms/,
    'a config a pull would refuse stays here',
  );
  t.same(
    remoteRefs(tm.remote).sort(),
    [`refs/lazy/tasks/${good}`, `refs/lazy/tasks/${template}`].sort(),
    'nothing bad reached the remote',
  );
  t.match((await a('push')).stdout, /skipped bad00002 \(a pull would refuse it; run lazy doctor\): .*schema/);
  const s = await a.json('sync');
  t.equal(s.run.code, 6, 'sync exits non-zero too');
  t.equal(s.value.push.skipped.length, 7);
  t.equal((await b.json('pull')).value.rejected.length, 0, 'so the other clone has nothing to refuse');
});

t.test('a push the remote refuses exits non-zero with git\'s reason, not "someone pushed first"', async (t) => {
  const tm = team(1);
  t.teardown(tm.cleanup);
  const a = cli(tm.clones[0]!);
  await a.create('blocked by policy');
  const hook = join(tm.remote, 'hooks', 'pre-receive');
  writeFileSync(hook, '#!/bin/sh\necho "policy: no pushes today" >&2\nexit 1\n');
  chmodSync(hook, 0o755);
  const p = await a.json('push');
  t.equal(p.run.code, 7, 'a refusal by the remote is exit 7');
  t.match(
    p.value.rejected[0].reason,
    /refused by the remote \(git: \[remote rejected\] \(pre-receive hook declined\)\)/,
  );
  t.notMatch(p.value.rejected[0].reason, /pull/, 'no advice to pull');
  const s = await a.json('sync');
  t.equal(s.run.code, 7);
  t.equal(s.value.rounds, 1, 'a refusal is not retried as a race');
});

t.test('agent names with a dot: config set, merge and list agree; a refused config says why', async (t) => {
  const tm = team(2);
  t.teardown(tm.cleanup);
  const a = cli(tm.clones[0]!);
  const b = cli(tm.clones[1]!);
  const set = await a.json('config', 'set', 'agents.my.agent.command', 'echo hi');
  t.equal(set.run.code, 0, 'a dotted agent name can be set');
  t.equal((await a.json('config', 'get', 'agents.my.agent.command')).value.value, 'echo hi');
  await a('push');
  await b('pull');
  // Both sides change the config: the pull must merge, not refuse.
  await a('config', 'set', 'agents.my.agent.args', 'fast');
  await a('push');
  await b('config', 'set', 'agent', 'my.agent');
  const p = await b.json('pull');
  t.equal(p.value.config, 'merged', 'the config merges');
  t.notOk(p.value.config_rejected);
  const merged = git(tm.clones[1]!, 'show', 'refs/lazy/config:config.yaml');
  t.match(merged, /^ {2}"?my\.agent"?:$/m, 'the dotted name is kept whole');
  t.match(merged, /^ {4}command: echo hi$/m);
  t.match(merged, /^ {4}args: fast$/m);
  t.ok((await b.json('config', 'list')).value.some((v: any) => v.key === 'agents.my.agent.args'));

  // A remote config that fails its schema is refused with the key and the reason.
  const seed = tm.clones[0]!;
  const parent = git(seed, 'rev-parse', 'refs/lazy/config');
  plantTree(seed, 'refs/lazy/config', { 'config.yaml': 'watchdog_ms: 5\n' }, parent);
  git(seed, 'push', '-q', 'origin', 'refs/lazy/config');
  const r = await b.json('pull');
  t.equal(r.value.config, 'rejected');
  t.match(r.value.config_rejected.reason, /fails the config schema at \/watchdog_ms: must be >= 100/);
  t.equal(r.value.config_rejected.details.path, '/watchdog_ms');
  t.match((await b('pull')).stdout, /rejected config: .*\/watchdog_ms/);
});
