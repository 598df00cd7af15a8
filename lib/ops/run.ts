import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { StringDecoder } from 'node:string_decoder';
import { notAllowed, usageError } from '../core/errors.js';
import { env } from '../core/env.js';
import { now } from '../core/clock.js';
import { taskBranch } from '../core/names.js';
import { Tail } from '../core/tail.js';
import { withLock } from '../core/lock.js';
import type { TaskView } from '../model/fold.js';
import { landingBranch } from '../model/landing.js';
import { situatedActions } from '../model/situation.js';
import { ensureWorktree, headOf, worktreePath } from '../workspace/worktree.js';
import { restoreBranch } from '../workspace/branch/restore.js';
import { boundedText } from './create.js';
import { firstLine } from './comment.js';
import { allowedTaskArg } from './resolve.js';
import type { App } from './app.js';

// lazy run <id> -- <command…>: a reviewer's command (the tests, a linter, a script) in the task's worktree, its
// output passed through as it runs and its outcome recorded on the task as a human turn (kind command), so the
// review carries what people checked beside what the agent reported. No status changes and no agent runs: the
// record is a fact about the branch, like a comment.

export interface CommandRun {
  task: TaskView;
  command: string[];
  exit_code: number | null;
  signal: string | null;
  duration_ms: number;
  output_tail: string;
}

export interface RunOptions {
  /** Where the command's output goes as it runs: the CLI's terminal; none for a tool call (its tail is the reply). */
  stream?: { out(chunk: string): void; err(chunk: string): void; outOpen?(): boolean };
  /** The command's stdin: the person's (CLI), or none (an MCP server's stdin is its protocol). */
  stdin: 'inherit' | 'ignore';
  /** The caller went away (an MCP client): the command is ended. */
  signal?: AbortSignal;
}

/** The exit status a shell reports for a command: its code, or 128 + the number of the signal that ended it. */
export const shellStatus = (r: { exit_code: number | null; signal: string | null }): number =>
  r.exit_code ?? 128 + ((r.signal && constants.signals[r.signal as NodeJS.Signals]) || 0);

/** One argv word as a POSIX shell reads it back: bare when it is plainly safe, else single-quoted. */
export const shellWord = (w: string) => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`);

export async function runCommand(app: App, idArg: string, argv: string[], o: RunOptions): Promise<CommandRun> {
  if (!argv.length || !argv[0]) throw noCommand();
  const command = boundedText('the command', argv.map(shellWord).join(' '));
  const { id, view } = await allowedTaskArg(app, idArg, 'run');
  const path = worktreePath(app.repo, id, (await app.config()).worktree_dir);
  // Under the task's lock, as pair makes it: the worktree again from lazy/<id> after a cleanup, never a new branch.
  await withLock(app.repo.lazyDir, id, async () => {
    if (!(await restoreBranch(app.repo, view))) throw noBranch(view);
    await ensureWorktree(app.repo, { path, branch: taskBranch(id), base: landingBranch(view) });
  });
  const head = await headOf(path);
  const started = now();
  const tail = new Tail();
  const ended = await spawnCommand(argv, path, id, tail, o, app.io.onSignal);
  const duration_ms = Math.max(0, Math.round(now() - started));
  const output_tail = tail.text();
  const details = { command, ...ended, duration_ms, head, output_tail, output_bytes: tail.bytes };
  // Recorded whatever the task became meanwhile: the command ran, and what it found is a fact about the branch.
  const { view: task } = await app.store.mutate(id, 'run', (d) => {
    d.turn({ role: 'human', kind: 'command', content: commandLine(details), details });
    // The commit's body, as lazy log's readers see it: how it ended first, a long command cut after.
    d.summary = firstLine(`${ended.exit_code !== null ? `exit ${ended.exit_code}` : ended.signal}: ${command}`);
  });
  return { task, command: argv, ...ended, duration_ms, output_tail };
}

/** The turn's text: the command and how it ended, as show's turn list prints it. */
export function commandLine(r: {
  command: string;
  exit_code: number | null;
  signal: string | null;
  duration_ms: number;
}) {
  const how = r.exit_code !== null ? `exit ${r.exit_code}` : `killed by ${r.signal ?? 'a signal'}`;
  return `$ ${r.command}\n(${how}, ${(r.duration_ms / 1000).toFixed(1)} s)`;
}

/**
 * The command, without a shell, in the worktree; its output to the stream and the tail. A Ctrl-C reaches the command
 * from the terminal (one process group) and is left to it: lazy stays to record how it ended, as a shell does.
 */
function spawnCommand(
  argv: string[],
  cwd: string,
  id: string,
  tail: Tail,
  o: RunOptions,
  onSignal: App['io']['onSignal'],
): Promise<{ exit_code: number | null; signal: string | null }> {
  return new Promise((resolve) => {
    const child = spawn(argv[0]!, argv.slice(1), {
      cwd,
      stdio: [o.stdin, 'pipe', 'pipe'],
      env: { ...env(), PWD: cwd, LAZY_TASK_ID: id },
      ...(o.signal ? { signal: o.signal, killSignal: 'SIGTERM' as const } : {}),
    });
    // Registered, SIGINT and SIGTERM no longer end lazy: SIGINT reached the command from the terminal, SIGTERM is passed on.
    const off = o.stream ? onSignal((sig) => void (sig === 'SIGTERM' && child.kill('SIGTERM'))) : () => {};
    const pass = (from: NodeJS.ReadableStream, to: ((s: string) => void) | undefined) => {
      // A character split between two chunks is passed on whole, and one cut at the very end is not lost.
      const text = new StringDecoder('utf8');
      from.on('data', (chunk: Buffer) => {
        tail.push(chunk);
        to?.(text.write(chunk));
        // The reader of lazy's stdout went away (| head): the command is told as a shell's pipe would tell it.
        if (o.stream?.outOpen?.() === false && child.exitCode === null) child.kill('SIGPIPE');
      });
      from.on('end', () => {
        const rest = text.end();
        if (rest) to?.(rest);
      });
    };
    pass(child.stdout, o.stream?.out);
    pass(child.stderr, o.stream?.err);
    let failed: { code: number; text: string } | null = null;
    child.on('error', (e: NodeJS.ErrnoException) => {
      // Not found or not executable: a shell's 127 and 126, with its reason in the output.
      if (e.name === 'AbortError') return;
      const missing = e.code === 'ENOENT';
      failed = { code: missing ? 127 : 126, text: `lazy: ${argv[0]}: ${missing ? 'command not found' : e.message}\n` };
    });
    child.on('close', (code, signal) => {
      off();
      if (failed) {
        tail.push(Buffer.from(failed.text));
        o.stream?.err(failed.text);
        return resolve({ exit_code: failed.code, signal: null });
      }
      resolve({ exit_code: signal ? null : code, signal: signal ?? null });
    });
  });
}

const noCommand = () =>
  usageError('name the command to run after --: lazy run <id> -- <command…>', { hint: 'lazy run --help' });

/** A task with no branch here: never started, its branch deleted after it ended, or not pulled yet. */
function noBranch(v: TaskView): Error {
  const why =
    v.status === 'backlog' && !v.session
      ? 'it never started, so there is no work to run a command on'
      : 'it is not in this clone (deleted when the task ended, or not pulled yet: lazy pull fetches it)';
  return notAllowed(
    'run',
    v.status,
    situatedActions(v, { noBranch: true }),
    `cannot run a command on task ${v.id}: its branch ${taskBranch(v.id)} does not exist here; ${why}`,
    { branch: taskBranch(v.id) },
  );
}
