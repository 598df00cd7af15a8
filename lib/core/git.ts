import { spawn } from 'node:child_process';
import { closeSync, openSync, rmSync } from 'node:fs';
import { gitFailed, gitMissing } from './errors.js';
import { env } from './env.js';

// A thin promise wrapper over child_process.spawn for the git CLI. Hot paths (reads,
// compare-and-swap) go through here; execa is reserved for agent processes where its
// kill/stream handling earns its start-up cost.

export interface GitOptions {
  cwd: string;
  input?: string | Buffer;
  env?: NodeJS.ProcessEnv;
  /** Return the result instead of throwing when git exits non-zero. */
  allowFail?: boolean;
  /** Let git's stderr (progress) through to ours instead of capturing it. */
  stderrInherit?: boolean;
  /**
   * Git writes its output to this file, left for the caller, and never blocks on a full pipe: the caller's own
   * synchronous work runs meanwhile, on another core. When the file cannot be opened the output comes as stdout.
   */
  stdoutFile?: string;
  /** Each chunk of git's output as it comes (stdout is then ''): the caller works while git still writes. */
  onStdout?: (chunk: Buffer) => void;
}

export interface GitResult {
  stdout: string;
  stderr: string;
  code: number;
  /** The output went to stdoutFile, not stdout. */
  spilled?: boolean;
}

export const GIT_ENV: NodeJS.ProcessEnv = { GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C', GIT_OPTIONAL_LOCKS: '0' };

/** The error a failed git command is reported as (exit 7), for a caller that ran it with allowFail first. */
export const gitError = (args: string[], r: GitResult) =>
  gitFailed(`git ${args[0]} failed: ${r.stderr.trim() || `exit ${r.code}`}`, {
    args,
    exit_code: r.code,
    stderr: r.stderr.trim(),
  });

export function git(args: string[], opts: GitOptions): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    const spill = opts.stdoutFile;
    let fd: number | undefined;
    try {
      if (spill) fd = openSync(spill, 'w');
    } catch {
      /* an unwritable folder: the pipe it is */
    }
    const child = spawn('git', args, {
      cwd: opts.cwd,
      env: { ...env(), ...GIT_ENV, ...opts.env },
      stdio: ['pipe', fd ?? 'pipe', opts.stderrInherit ? 'inherit' : 'pipe'],
    });
    if (fd !== undefined) closeSync(fd);
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout?.on('data', opts.onStdout ?? ((d: Buffer) => out.push(d)));
    child.stderr?.on('data', (d: Buffer) => err.push(d));
    child.on('error', (e: NodeJS.ErrnoException) => {
      if (spill) rmSync(spill, { force: true });
      reject(
        e.code === 'ENOENT'
          ? gitMissing('git is not installed or not on PATH')
          : gitFailed(`could not run git: ${e.message}`),
      );
    });
    child.on('close', (code) => {
      const result = {
        stdout: Buffer.concat(out).toString('utf8'),
        spilled: fd !== undefined,
        stderr: Buffer.concat(err).toString('utf8'),
        code: code ?? 128,
      };
      if (result.code !== 0 && !opts.allowFail) {
        reject(gitError(args, result));
      } else resolve(result);
    });
    child.stdin!.on('error', () => {
      /* git may exit before reading all input; the exit code tells */
    });
    child.stdin!.end(opts.input ?? '');
  });
}
