import { spawn } from 'node:child_process';
// This process's stdout and stderr: the real port writes through here (bin/io.ts).

// A reader that goes away (`lazy list | head -1`) ends our output quietly, as in git:
// nothing more is written, the command finishes what it started, and exits as it would.
let stdoutGone = false;
let stdoutFailure: string | undefined;

let guarded = false;

/** Installed at start-up, before anything is printed (once per process: main() may run many times). */
export function guardPipes(): void {
  if (guarded) return;
  guarded = true;
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    stdoutGone = true;
    // A full disk or a broken file is not a reader that left: that output was lost.
    if (e.code !== 'EPIPE' && e.code !== 'ERR_STREAM_DESTROYED') stdoutFailure ??= e.message;
  });
}

let stderrGuarded = false;

/** Every byte for stderr goes through here; its stream is built on the first write (most commands write none). */
export function writeErr(text: string): void {
  // Warnings have nowhere else to go: a closed stderr is never a reason to fail.
  if (!stderrGuarded) process.stderr.on('error', () => {});
  stderrGuarded = true;
  process.stderr.write(text);
}

/** After everything was written: why output was lost (not a closed pipe), if it was. */
export async function outputFailure(): Promise<string | undefined> {
  if (!stdoutGone) await new Promise<void>((res) => process.stdout.write('', () => res()));
  return stdoutFailure;
}

/** False once stdout's reader has closed the pipe: long-running output can stop. */
export const stdoutOpen = () => !stdoutGone;

/** Every byte for stdout goes through here. */
export function writeOut(text: string): void {
  if (!stdoutGone) process.stdout.write(text);
}

/**
 * Writes `text` into `pager` (run by the shell, as git runs one) and waits for it to exit. A pager that
 * quits before reading everything is a reader that left; one that cannot start (the shell's 127: not found)
 * leaves the text on stdout, as git's does.
 * Ctrl-C belongs to the pager meanwhile (less uses it), as in git: this process waits it out.
 */
export function pageThrough(text: string, pager: string, env: NodeJS.ProcessEnv): Promise<void> {
  const ignore = () => {};
  process.on('SIGINT', ignore);
  return new Promise<void>((res) => {
    const child = spawn(pager, { shell: true, stdio: ['pipe', 'inherit', 'inherit'], env });
    child.on('error', () => {
      writeOut(text);
      res();
    });
    child.on('close', (code) => {
      if (code === 127) writeOut(text);
      res();
    });
    child.stdin.on('error', () => {});
    child.stdin.end(text);
  }).finally(() => process.off('SIGINT', ignore));
}
