import { asLazyError, type LazyError } from '../core/errors.js';

// One place decides how results and errors reach the terminal. With --json, stdout
// carries exactly one JSON document (the result, or {"error": …}); warnings always go
// to stderr so they never corrupt it.

export interface Output {
  json: boolean;
}

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
  // Warnings have nowhere else to go: a closed stderr is never a reason to fail.
  process.stderr.on('error', () => {});
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

/** Stored text may come from another clone: nothing printed may drive the terminal. */
const UNPRINTABLE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
/** What JSON.stringify leaves raw (it escapes C0 itself): DEL and the C1 controls. */
const JSON_UNPRINTABLE = /[\u007f-\u009f]/g;

const escapeAs = (re: RegExp) => (text: string) =>
  text.replace(re, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
export const safeText = escapeAs(UNPRINTABLE);

export function printJson(value: unknown): void {
  // The \uXXXX escape is valid JSON, so the document parses to the same strings.
  writeOut(escapeAs(JSON_UNPRINTABLE)(JSON.stringify(value, null, 2)) + '\n');
}

export function printText(text: string): void {
  const safe = safeText(text);
  if (safe) writeOut(safe.endsWith('\n') ? safe : safe + '\n');
}

export function emit<T>(out: Output, value: T, text: (v: T) => string): void {
  if (out.json) printJson(value);
  else printText(text(value));
}

export function warn(message: string): void {
  process.stderr.write(`lazy: warning: ${safeText(message)}\n`);
}

export function errorJson(e: LazyError) {
  return { error: { code: e.code, message: e.message, details: e.details } };
}

/** Reports a failure and returns the exit code. */
export function reportError(out: Output, err: unknown): number {
  const e = asLazyError(err);
  if (out.json) printJson(errorJson(e));
  else {
    const stack = e.code === 'unexpected' && typeof e.details.stack === 'string' ? e.details.stack : undefined;
    process.stderr.write(`lazy: ${safeText(stack ?? e.message)}\n`);
    const hint = e.details.hint;
    if (typeof hint === 'string') process.stderr.write(`hint: ${safeText(hint)}\n`);
  }
  return e.exitCode;
}
