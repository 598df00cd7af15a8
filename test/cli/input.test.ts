import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync, spawnSync } from 'node:child_process';
import { background } from '../helpers/procs.js';
import { LAZY, lazySpawn, sandbox } from '../helpers/env.js';
import { agentSandbox, type AgentBox } from '../helpers/agent.js';
import { cleanupAfterSupervisors } from '../helpers/supervisors.js';
import { concurrent } from '../helpers/concurrent.js';

// How the real binary reads its input: to its limit, never to its end (stdin held open, a
// --prompt-file that is not a regular file; issue 8, item 9), through a shell pipe with NUL
// in it, and never from an inherited socket where the text is optional.

const test = concurrent(3);

/** Spawns the CLI with stdin fed `bytes` and then held open (never EOF); resolves with its exit. */
function withEndlessStdin(
  box: AgentBox,
  args: string[],
  bytes: number,
): Promise<{ code: number | null; stdout: string; ms: number }> {
  return new Promise((res) => {
    const started = Date.now();
    const child = background(process.execPath, [LAZY, ...args], {
      cwd: box.sb.dir,
      env: box.sb.env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stdin.on('error', () => {});
    child.stdin.write(Buffer.alloc(bytes, 'y\n'));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      child.stdin.destroy();
      res({ code, stdout, ms: Date.now() - started });
    });
  });
}

test('stdin is read to its limit plus one byte, not to its end', async (t) => {
  const box = await agentSandbox();
  cleanupAfterSupervisors(t, box.sb);
  const id = await box.l.create('endless stdin');
  const r = await withEndlessStdin(box, ['comment', id, '--json'], 600 * 1024);
  t.equal(r.code, 2, `a usage error, not a hang (${r.ms} ms)`);
  t.match(JSON.parse(r.stdout).error, {
    code: 'usage',
    message: /stdin is larger than 524288 bytes/,
    details: { limit: 524288 },
  });
  t.equal((await box.l.json('show', id)).value.turns.length, 0, 'nothing was written');
});

test('--prompt-file must be a regular file: a FIFO is refused, never waited on', async (t) => {
  const box = await agentSandbox();
  cleanupAfterSupervisors(t, box.sb);
  const fifo = join(box.sb.dir, 'prompt.fifo');
  execFileSync('mkfifo', [fifo]);
  const r = await box.l.json('create', 'fifo prompt', '--prompt-file', fifo);
  t.equal(r.run.code, 2);
  t.match(r.value.error.message, /prompt\.fifo is a FIFO, not a regular file/);
  writeFileSync(join(box.sb.dir, 'big.txt'), Buffer.alloc(600 * 1024, 'a'));
  const big = await box.l.json('create', 'big prompt', '--prompt-file', 'big.txt');
  t.equal(big.run.code, 2);
  t.match(big.value.error.message, /--prompt-file big.txt is larger than 524288 bytes/);
});

test('a shell pipe carries NUL into the prompt, escaped; an inherited socket is never waited on', async (t) => {
  const sb = sandbox();
  t.teardown(sb.cleanup);
  // A shell pipe, as a user types it: `printf … | lazy create … --prompt-file -`.
  writeFileSync(join(sb.home, 'nul.txt'), 'stdin prompt \u0000 NUL\n');
  const c3 = spawnSync(
    'sh',
    [
      '-c',
      `cat "${join(sb.home, 'nul.txt')}" | "${process.execPath}" "${LAZY}" create "stdin goal" --prompt-file - --json`,
    ],
    { cwd: sb.dir, env: sb.env, encoding: 'utf8' },
  );
  t.match(JSON.parse(c3.stdout).task.prompt, /^stdin prompt \\u0000 NUL/, 'prompt on stdin');
  // The spawned binary's stdin is a socket here, as a parent process's inherited stdin would be.
  const socket = await lazySpawn(['create', 'socket goal', '--json'], {
    cwd: sb.dir,
    env: sb.env,
    input: 'not read from a socket\n',
  });
  t.equal(JSON.parse(socket.stdout).task.prompt, null, 'an inherited socket is never waited on for an optional prompt');
});
