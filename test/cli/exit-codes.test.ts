import t from 'tap';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { LAZY, gitSync, lazySpawn, sandbox } from '../helpers/env.js';
import { agentSandbox, reviewed } from '../helpers/agent.js';
import { background, exited } from '../helpers/procs.js';

// The real binary's exit codes where a person's input or the place it runs in is wrong
// (docs/commands.md, "Exit codes"): exit 2 and a clear message, never git's blame or a stack trace.

const json = (stdout: string) => JSON.parse(stdout) as { error: { code: string; message: string } };

t.test('outside a git repository: exit 2 not_a_repository, saying so', async (t) => {
  const sb = sandbox();
  t.teardown(sb.cleanup);
  const r = await lazySpawn(['list'], { cwd: sb.home, env: sb.env });
  t.equal(r.code, 2, r.stderr);
  t.match(r.stderr, /not a git repository \(or any of its parents\): .*home/);
  t.match(r.stderr, /hint: .*-C <dir>/, 'and what to do');
  const j = await lazySpawn(['list', '--json'], { cwd: sb.home, env: sb.env });
  t.equal(json(j.stdout).error.code, 'not_a_repository');
});

t.test('-C naming nothing, or a file: exit 2 usage, never git blamed, no stack trace', async (t) => {
  const sb = sandbox();
  t.teardown(sb.cleanup);
  writeFileSync(join(sb.dir, 'a-file'), 'x');
  for (const [dir, why] of [
    ['/nonexistent', /no such directory: \/nonexistent/],
    [join(sb.dir, 'missing'), /no such directory: .*missing/],
    [join(sb.dir, 'a-file'), /not a directory: .*a-file/],
  ] as const) {
    const r = await lazySpawn(['-C', dir, 'list'], { cwd: sb.dir, env: sb.env });
    t.equal(r.code, 2, `-C ${dir}: exit 2 (${r.stderr.trim()})`);
    t.match(r.stderr, why);
    t.notMatch(r.stderr, /git|\n\s+at /, 'neither git nor a stack trace');
    const j = await lazySpawn(['-C', dir, 'list', '--json'], { cwd: sb.dir, env: sb.env });
    t.equal(json(j.stdout).error.code, 'usage');
  }
});

t.test('accept off a terminal without --yes: exit 2 naming --yes, nothing merged', async (t) => {
  const box = await agentSandbox();
  t.teardown(box.sb.cleanup);
  const id = await reviewed(box, 'a piped accept');
  const main = gitSync(box.sb.dir, box.sb.env, ['rev-parse', 'main']);
  const r = await lazySpawn(['accept', id], { cwd: box.sb.dir, env: box.sb.env });
  t.equal(r.code, 2, r.stderr);
  t.match(r.stderr, /only with --yes when not run on a terminal/);
  t.match(r.stderr, new RegExp(`hint: lazy accept ${id} --yes`));
  t.equal(gitSync(box.sb.dir, box.sb.env, ['rev-parse', 'main']), main, 'the target did not move');
  t.equal((await box.l.json('show', id)).value.status, 'blocked', 'the task is still waiting for review');
  const ok = await lazySpawn(['accept', id, '--yes', '--json'], { cwd: box.sb.dir, env: box.sb.env });
  t.equal(ok.code, 0, `with --yes it merges: ${ok.stderr}`);
});

t.test('declining the accept prompt on a terminal: exit 2 cancelled, nothing merged', async (t) => {
  const box = await agentSandbox();
  t.teardown(box.sb.cleanup);
  const id = await reviewed(box, 'a declined accept');
  const main = gitSync(box.sb.dir, box.sb.env, ['rev-parse', 'main']);
  // script(1) gives lazy a real terminal; "n" answers its prompt.
  const r = spawnSync('script', ['-qec', `"${process.execPath}" "${LAZY}" accept ${id}`, '/dev/null'], {
    cwd: box.sb.dir,
    env: box.sb.env,
    input: 'n\n',
    encoding: 'utf8',
    timeout: 30_000,
  });
  t.match(r.stdout, /Squash-merge lazy\/\S+ into main\? \[y\/N\]/, 'it asked');
  t.match(r.stdout, /accept cancelled: nothing was merged/);
  t.equal(r.status, 2, 'exit 2: cancelled, not 4');
  t.equal(gitSync(box.sb.dir, box.sb.env, ['rev-parse', 'main']), main, 'the target did not move');
  t.equal((await box.l.json('show', id)).value.status, 'blocked');
});

t.test('stdin is never read when the command needs no text from it: a pipe held open', async (t) => {
  const sb = sandbox();
  t.teardown(sb.cleanup);
  // The test holds the write end of lazy's stdin and never closes it while lazy runs: no clock decides.
  const lazy = background(process.execPath, [LAZY, 'create', 'x', '--json'], {
    cwd: sb.dir,
    env: sb.env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  lazy.stdout.on('data', (d) => (out += d));
  const hung = setTimeout(() => lazy.kill('SIGKILL'), 120_000);
  const { code, signal } = await exited(lazy);
  clearTimeout(hung);
  t.equal(signal, null, 'create ended by itself while its stdin was open, not by the hang guard');
  t.equal(code, 0);
  lazy.stdin.destroy();
  t.equal(JSON.parse(out).task.goal, 'x', 'the task was created');
  t.equal(JSON.parse(out).task.prompt, null, 'with nothing from stdin');
});
