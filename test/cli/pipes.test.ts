import { LAZY, sandbox, cli, type Sandbox } from '../helpers/env.js';
import { agentSandbox } from '../helpers/agent.js';
import { background } from '../helpers/procs.js';
import { concurrent } from '../helpers/concurrent.js';

// `lazy list | head -1`: a reader that goes away ends lazy's output quietly, as in git.
// The reader here keeps the first line and closes its end of the pipe.

interface Closed {
  code: number | null;
  signal: NodeJS.Signals | null;
  first: string;
  stderr: string;
}

function firstLineThenClose(args: string[], sb: Sandbox, env: NodeJS.ProcessEnv = {}): Promise<Closed> {
  return new Promise((res, rej) => {
    const child = background(process.execPath, [LAZY, ...args], {
      cwd: sb.dir,
      env: { ...sb.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let stderr = '';
    let first = '';
    child.stdout.on('data', (d) => {
      out += d;
      const nl = out.indexOf('\n');
      if (nl >= 0 && !first) {
        first = out.slice(0, nl);
        child.stdout.destroy();
      }
    });
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', rej);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      res({ code, signal, first, stderr });
    });
  });
}

const test = concurrent(4);

test('list, show, log, diff and inbox stop quietly when the reader leaves, at 1,000 tasks', async (t) => {
  const sb = sandbox('lazy-pipes');
  t.teardown(sb.cleanup);
  const l = cli(sb);
  t.equal((await l('__bench-seed', '1000')).code, 0);
  const id = (await l.json('list')).value[0].id as string;
  // show's output must be larger than a pipe's buffer (64 KiB) to be cut short.
  for (let i = 0; i < 30; i++)
    await l('comment', id, '-m', `comment ${i}\n${'a line of the comment that keeps going\n'.repeat(100)}`).then(
      (r) => {
        if (r.code) throw new Error(r.stderr);
      },
    );
  const cases: string[][] = [
    ['list'],
    ['list', '--json'],
    ['list', '--all', '--tree'],
    ['show', id],
    ['show', id, '--json'],
    ['log', id],
    ['inbox', '--json'],
    ['watch', '--once', '--json'],
    ['--help'],
  ];
  for (const args of cases) {
    const r = await firstLineThenClose(args, sb);
    t.equal(r.code, 0, `lazy ${args.join(' ')} exits 0`);
    t.equal(r.signal, null);
    t.equal(r.stderr, '', `lazy ${args.join(' ')} prints nothing on stderr`);
    t.not(r.first, '', 'the first line arrived');
  }
});

test('a mutation whose output pipe closed still completes', async (t) => {
  const sb = sandbox('lazy-pipes');
  t.teardown(sb.cleanup);
  const l = cli(sb);
  const id = await l.create('pipe me');
  // comment --json prints the whole task ({task}): make it larger than a pipe's buffer.
  const long = 'a comment long enough to overflow a pipe\n'.repeat(700);
  for (let i = 0; i < 4; i++) t.equal((await l('comment', id, '-m', long)).code, 0);
  const r = await firstLineThenClose(['comment', id, '-m', 'the last word', '--json'], sb);
  t.equal(r.code, 0);
  t.equal(r.stderr, '');
  const v = (await l.json('show', id)).value;
  t.ok(
    v.turns.some((x: { content: string }) => x.content === 'the last word'),
    'the comment was recorded',
  );
});

test('start --follow stops streaming when the reader leaves; the turn runs on', async (t) => {
  const { sb, l, scenario } = await agentSandbox();
  t.teardown(sb.cleanup);
  scenario('slow-succeed');
  const id = await l.create('follow me into a closed pipe', '--accept', 'done');
  const r = await firstLineThenClose(['start', id, '--follow'], sb, { FAKE_SLEEP_MS: '1500' });
  t.equal(r.code, 0);
  t.equal(r.stderr, '');
  t.match(r.first, /attempt 1/, 'the first line of the stream arrived');
  const v = (await l.json('wait', id, '--timeout', '30')).value.task;
  t.equal(v.status, 'blocked', 'the turn finished on its own');
  const d = await firstLineThenClose(['diff', id], sb);
  t.same([d.code, d.stderr], [0, ''], 'diff stops quietly too');
});

test('output that cannot be written (a full disk) is an error, not silence', async (t) => {
  const sb = sandbox('lazy-pipes');
  t.teardown(sb.cleanup);
  await cli(sb).create('one task');
  const { openSync, closeSync } = await import('node:fs');
  const full = openSync('/dev/full', 'w');
  t.teardown(() => closeSync(full));
  const r: { code: number | null; stderr: string } = await new Promise((res) => {
    const child = background(process.execPath, [LAZY, 'list'], {
      cwd: sb.dir,
      env: sb.env,
      stdio: ['ignore', full, 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += d));
    child.on('close', (code) => res({ code, stderr }));
  });
  t.equal(r.code, 1);
  t.match(r.stderr, /output was not written: ENOSPC/);
});
