import { cli } from '../helpers/env.js';
import { team, withFakeAgent } from '../helpers/team.js';
import { FAKE_COMMAND } from '../helpers/agent.js';
import { concurrent } from '../helpers/concurrent.js';

// Issue 8, "what is untrusted is not obeyed": settings that arrive with a pull may add
// protection at once, but may not narrow it, weaken a safety limit or run a shared agent
// command until this clone runs lazy config trust.

const held = (list: any[], key: string) => list.find((v) => v.key === key)?.held_back;

const test = concurrent(3);

test('a pull cannot narrow protected or change a safety limit until config trust', async (t) => {
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

test('settings this clone writes itself apply at once, and a pull cannot undo an arrival', async (t) => {
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

test('shared agent commands from a pull run only once this clone trusts them', async (t) => {
  const tm = team(2);
  t.teardown(tm.cleanup);
  const a = cli(tm.clones[0]!);
  const b = cli(tm.clones[1]!);
  await a('config', 'set', 'agents.team.command', FAKE_COMMAND);
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
