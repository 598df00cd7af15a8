import { type Test } from 'tap';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { sandbox, lazySpawn, cli as inprocCli, type Sandbox } from '../helpers/env.js';
import { cloneTask } from '../helpers/plant.js';
import { concurrent } from '../helpers/concurrent.js';
import { eventually } from '../helpers/agent.js';
import { withLock } from '../../lib/core/lock.js';

// The exit code and the JSON error of each failure class, from the real binary.

const errorShape = (t: Test, v: any, code: string) => {
  t.same(Object.keys(v), ['error'], 'only an error object on stdout');
  t.equal(v.error.code, code);
  t.type(v.error.message, 'string');
  t.type(v.error.details, 'object');
};

/** `cli(sb)` over the spawned binary: the exit status is the process's own. */
function cli(sb: Sandbox, extraEnv: NodeJS.ProcessEnv = {}) {
  const o = () => ({ cwd: sb.dir, env: { ...sb.env, ...extraEnv } });
  const run = (...args: string[]) => lazySpawn(args, o());
  run.json = async (...args: string[]) => {
    const r = await lazySpawn([...args, '--json'], o());
    return { run: r, value: JSON.parse(r.stdout) };
  };
  // Setup runs in-process; what is asserted runs in the binary.
  run.create = (...args: string[]) => inprocCli(sb, extraEnv).create(...args);
  return run;
}

const test = concurrent(6);

test('usage errors exit 2', async (t) => {
  const sb = sandbox();
  t.teardown(sb.cleanup);
  const l = cli(sb);
  for (const args of [['frobnicate'], ['create'], ['show', 'ab'], ['list', '--status', 'bogus'], ['comment']]) {
    const r = await l.json(...args);
    t.equal(r.run.code, 2, `lazy ${args.join(' ')} → 2`);
    errorShape(t, r.value, 'usage');
  }
  const id = await l.create('x');
  const noText = await l.json('comment', id);
  t.equal(noText.run.code, 2, 'a comment with no text is a usage error');
  const text = await l('frobnicate');
  t.equal(text.stdout, '', 'text mode keeps stdout clean on failure');
  t.match(text.stderr, /^lazy: unknown command 'frobnicate'; the nearest is '\w+'\n/, 'an unknown command, said so');
  t.match((await l('lsit')).stderr, "unknown command 'lsit'; the nearest is 'list'", 'with the nearest command');
  t.match((await l.json('-C', sb.dir, 'statr')).value.error.details, { command: 'statr', nearest: 'start' });
});

test('no such task, ambiguous and unique prefixes exit 3 or resolve', async (t) => {
  const sb = sandbox();
  t.teardown(sb.cleanup);
  const l = cli(sb);
  const id = await l.create('the original');
  const unknown = await l.json('show', 'zzzzzzzz');
  t.equal(unknown.run.code, 3);
  errorShape(t, unknown.value, 'task_not_found');
  const unknownPrefix = await l.json('show', id[0] === 'z' ? 'yyyy' : 'zzzz');
  t.equal(unknownPrefix.run.code, 3, 'an unknown prefix');

  // The twin shares exactly 5 characters: its 6th always differs (a random id ending in
  // "z…" once made the 6-character prefix ambiguous, about one run in 32).
  const twin = id.slice(0, 5) + (id[5] === 'z' ? 'yyy' : 'zzz');
  cloneTask(sb, id, twin);
  const amb = await l.json('show', id.slice(0, 4));
  t.equal(amb.run.code, 3, 'an ambiguous prefix');
  errorShape(t, amb.value, 'ambiguous_id');
  t.same(amb.value.error.details.candidates, [id, twin].sort(), 'lists the candidates');
  t.match((await l('show', id.slice(0, 4))).stderr, new RegExp(`${id}.*${twin}|${twin}.*${id}`));
  t.equal((await l.json('show', id.slice(0, 6))).value.id, id, 'a longer unique prefix resolves');
  t.equal((await l.json('show', twin)).value.goal, 'the original', 'the planted twin is a valid task');
  t.equal((await l.json('show', id.toUpperCase())).value.id, id, 'ids are case-insensitive on input');
});

test('action not allowed exits 4 with status and available actions', async (t) => {
  const sb = sandbox();
  t.teardown(sb.cleanup);
  const l = cli(sb);
  const id = await l.create('x', '--accept', 'it is done');
  const r = await l.json('reject', id);
  t.equal(r.run.code, 4);
  errorShape(t, r.value, 'action_not_allowed');
  t.equal(r.value.error.details.status, 'backlog');
  t.same(r.value.error.details.available_actions, ['start', 'queue', 'close', 'comment', 'edit']);
});

test('a held lock exits 5 after a bounded wait', async (t) => {
  const sb = sandbox();
  t.teardown(sb.cleanup);
  const l = cli(sb, { LAZY_LOCK_TIMEOUT_MS: '300' });
  const id = await l.create('x');
  // Held for real by this process, its mtime kept fresh as a live holder's is: a bare lock dir
  // turns stale after 5 s, and a loaded machine took longer than that to reach the lock once.
  let release = () => {};
  const held = new Promise<void>((r) => (release = r));
  const holding = withLock(join(sb.dir, '.git', 'lazy'), id, () => held);
  await eventually(() => existsSync(join(sb.dir, '.git', 'lazy', 'locks', `${id}.lock`)), 20_000, 'the lock');
  const started = Date.now();
  const r = await l.json('comment', id, '-m', 'blocked by the lock');
  release();
  await holding;
  t.equal(r.run.code, 5);
  errorShape(t, r.value, 'busy');
  // The configured wait, as the error reports it; the clock only tells it from the default 15 s
  // (a 5 s bound was outlasted on a machine twice as slow).
  t.equal(r.value.error.details.waited_ms, 300, 'gives up after the configured wait');
  t.match(r.value.error.message, /waited 300 ms/);
  t.ok(Date.now() - started < 15_000, 'not after the default wait');
  t.equal((await l.json('show', id)).value.turns.length, 0, 'nothing was written');
});

test('a missing git exits 7', async (t) => {
  const sb = sandbox();
  t.teardown(sb.cleanup);
  const id = await cli(sb).create('x');
  const l = cli(sb, { PATH: '/nonexistent' });
  const r = await l.json('show', id);
  t.equal(r.run.code, 7);
  errorShape(t, r.value, 'git_missing');
});

test('a missing git identity exits 7 and writes nothing', async (t) => {
  const sb = sandbox();
  t.teardown(sb.cleanup);
  const env = { ...sb.env };
  for (const k of ['GIT_AUTHOR_NAME', 'GIT_AUTHOR_EMAIL', 'GIT_COMMITTER_NAME', 'GIT_COMMITTER_EMAIL']) delete env[k];
  const l = cli({ ...sb, env }, { EMAIL: '', GIT_AUTHOR_NAME: '', GIT_AUTHOR_EMAIL: '' });
  const r = await l.json('create', 'x');
  t.equal(r.run.code, 7);
  errorShape(t, r.value, 'git_identity_missing');
  t.same((await cli(sb).json('list', '--all')).value, []);
});
