import { fstatSync, mkdtempSync, writeFileSync } from 'node:fs';
import { resolve, join } from 'node:path';
import { tmpdir } from 'node:os';
import { spawnSync } from 'node:child_process';
import type { TaskView } from '../lib/model/fold.js';
import { openApp, closeApp, type App } from '../lib/ops/app.js';
import { emit, reportError, stdoutOpen, writeOut, type Output } from '../lib/output/emit.js';
import { usageError } from '../lib/core/errors.js';
import { readTextInput } from '../lib/core/fsutil.js';

// The glue every command file uses: open the repository, run one lifecycle
// operation, print its result (text or --json), and turn failures into exit codes.

export interface GlobalArgs {
  json?: boolean;
  C?: string;
}

export let exitCode = 0;
export const setExitCode = (code: number) => {
  exitCode = code;
};

export const outputOf = (a: GlobalArgs): Output => ({ json: !!a.json });

export async function run<T>(
  a: GlobalArgs,
  op: (app: App) => Promise<T>,
  text: (v: T) => string,
  exit?: (v: T) => number,
  opts: { reconcile?: boolean } = {},
): Promise<void> {
  const out = outputOf(a);
  let app: App | undefined;
  try {
    app = await openApp({ cwd: resolve(a.C ?? process.cwd()), json: out.json, reconcile: opts.reconcile });
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

/**
 * Piped or redirected stdin; never a terminal or /dev/null. Where the text is optional
 * (create's prompt) a socket is not read: an inherited, never-closed socket (a parent
 * process's stdin) would block the command forever.
 */
export function readStdinText(optional = false): string | undefined {
  try {
    const st = fstatSync(0);
    if (!st.isFIFO() && !st.isFile() && (optional || !st.isSocket())) return undefined;
  } catch {
    return undefined;
  }
  const text = readTextInput(0, 'stdin');
  return text.length ? text : undefined;
}

/** -m TEXT, else stdin, else $EDITOR on a terminal; a required text that is missing is a usage error. */
export function messageArg(m: string | undefined, what: string, required: boolean): string | undefined {
  const text = m ?? readStdinText() ?? (required ? fromEditor(what) : undefined);
  if (required && (text === undefined || !text.trim()))
    throw usageError(`${what} is required: pass -m TEXT, pipe it on stdin, or set $EDITOR`);
  return text;
}

/** Opens $EDITOR on a terminal; lines starting with '#' are instructions and are dropped. */
function fromEditor(what: string): string | undefined {
  const editor = process.env.VISUAL || process.env.EDITOR;
  if (!editor || !process.stdin.isTTY) return undefined;
  const file = join(mkdtempSync(join(tmpdir(), 'lazy-')), 'MESSAGE.txt');
  writeFileSync(file, `\n# Write ${what} above. Lines starting with '#' are ignored; an empty message aborts.\n`);
  const r = spawnSync(editor, [file], { stdio: 'inherit', shell: true });
  if (r.status !== 0) return undefined;
  return (
    readTextInput(file, what)
      .split('\n')
      .filter((l) => !l.startsWith('#'))
      .join('\n')
      .trim() || undefined
  );
}

export interface FollowArgs {
  follow?: boolean;
}

/**
 * --follow: stream the turn's output until the task leaves working, then report where it
 * landed. A reader that goes away ends the stream; the turn itself runs on.
 */
export async function maybeFollow<T extends { task: TaskView }>(
  app: App,
  a: GlobalArgs & FollowArgs,
  r: T,
): Promise<T> {
  if (!a.follow || r.task.status !== 'working') return r;
  const { followTask } = await import('../lib/ops/follow.js');
  const task = await followTask(
    app,
    r.task.id,
    (s) => {
      if (!a.json) writeOut(s);
    },
    () => !stdoutOpen(),
  );
  return { ...r, task };
}
