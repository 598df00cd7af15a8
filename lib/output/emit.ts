import { asLazyError, type LazyError } from '../core/errors.js';

// One place decides how results and errors reach the terminal. With --json, stdout
// carries exactly one JSON document (the result, or {"error": …}); warnings always go
// to stderr so they never corrupt it.

export interface Output { json: boolean }

export function printJson(value: unknown): void {
  process.stdout.write(JSON.stringify(value, null, 2) + '\n');
}

export function printText(text: string): void {
  if (text) process.stdout.write(text.endsWith('\n') ? text : text + '\n');
}

export function emit<T>(out: Output, value: T, text: (v: T) => string): void {
  if (out.json) printJson(value);
  else printText(text(value));
}

export function warn(message: string): void {
  process.stderr.write(`lazy: warning: ${message}\n`);
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
    process.stderr.write(`lazy: ${stack ?? e.message}\n`);
    const hint = e.details.hint;
    if (typeof hint === 'string') process.stderr.write(`hint: ${hint}\n`);
  }
  return e.exitCode;
}
