import { fstatSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { openApp, closeApp, type App } from '../lib/ops/app.js';
import { emit, reportError, type Output } from '../lib/output/emit.js';
import { usageError } from '../lib/core/errors.js';

// The glue every command file uses: open the repository, run one lifecycle
// operation, print its result (text or --json), and turn failures into exit codes.

export interface GlobalArgs { json?: boolean; C?: string }

export let exitCode = 0;
export const setExitCode = (code: number) => { exitCode = code; };

export const outputOf = (a: GlobalArgs): Output => ({ json: !!a.json });

export async function run<T>(a: GlobalArgs, op: (app: App) => Promise<T>, text: (v: T) => string, exit?: (v: T) => number): Promise<void> {
  const out = outputOf(a);
  let app: App | undefined;
  try {
    app = await openApp({ cwd: resolve(a.C ?? process.cwd()), json: out.json });
    const value = await op(app);
    emit(out, value, text);
    if (exit) exitCode = exit(value);
  } catch (e) {
    exitCode = reportError(out, e);
  } finally {
    if (app) closeApp(app);
  }
}

/** For commands that need no repository (demo, help-like commands). */
export async function runBare<T>(a: GlobalArgs, op: () => Promise<T>, text: (v: T) => string): Promise<void> {
  const out = outputOf(a);
  try {
    emit(out, await op(), text);
  } catch (e) {
    exitCode = reportError(out, e);
  }
}

/** Piped or redirected stdin (pipe, socket or file); never a terminal or /dev/null. */
export function readStdinText(): string | undefined {
  try {
    const st = fstatSync(0);
    if (!st.isFIFO() && !st.isFile() && !st.isSocket()) return undefined;
    const text = readFileSync(0, 'utf8');
    return text.length ? text : undefined;
  } catch {
    return undefined;
  }
}

/** -m TEXT, else stdin; a required text that is missing is a usage error. */
export function messageArg(m: string | undefined, what: string, required: boolean): string | undefined {
  const text = m ?? readStdinText();
  if (required && (text === undefined || !text.trim())) throw usageError(`${what} is required: pass -m TEXT or pipe it on stdin`);
  return text;
}
