import { resolve } from 'node:path';
import type { DecisionFlags } from '../lib/ops/decisions.js';
import type { TaskView } from '../lib/model/fold.js';
import { openApp, closeApp, type App } from '../lib/ops/app.js';
import { emit, renderedText, reportError, type Rendered } from '../lib/output/emit.js';
import { colorWanted, type ColorMode, type Style } from '../lib/output/color.js';
import type { Io } from '../lib/core/io.js';
import { usageError } from '../lib/core/errors.js';
import { currentCall } from './call.js';
import { renderWaited } from '../lib/output/turns.js';
import { pagerFor } from '../lib/output/pager.js';

// The glue every command file uses: open the repository, run one lifecycle
// operation, print its result (text or --json), and turn failures into exit codes.

export interface GlobalArgs {
  json?: boolean;
  C?: string;
  color?: ColorMode;
  /** --fields a,b.c: print only these fields of the --json document (implies --json). */
  fields?: string;
  /** yargs: the command's name first. */
  _?: (string | number)[];
}

/** --fields names a field its command never prints: refused before the command acts (exit 2, nothing done). */
async function precheck(a: GlobalArgs): Promise<void> {
  if (a.fields === undefined) return;
  const { parseFields, precheckFields } = await import('../lib/output/fields.js');
  precheckFields(String(a._?.[0] ?? ''), parseFields(String(a.fields))); // a repeated --fields is an array: String joins it
}

/** The value --json prints: the whole result, or the fields --fields names (lib/output/fields.ts). */
async function printed<T>(a: GlobalArgs, value: T): Promise<unknown> {
  if (a.fields === undefined) return value;
  const { parseFields, pickFields } = await import('../lib/output/fields.js');
  return pickFields(value, parseFields(String(a.fields)));
}

/** How text output looks on this call's stdout: coloured or not (--color, NO_COLOR, FORCE_COLOR), a terminal or not. */
export const styleOf = (io: Io, a: GlobalArgs): Style => ({
  color: colorWanted(a.color, io.env, io.isTTY.stdout),
  tty: io.isTTY.stdout,
});

export const setExitCode = (code: number) => {
  currentCall().exitCode = code;
};

export interface RunOptions<T> {
  /** The exit code a result ends with (default 0). */
  exit?: (v: T) => number;
  /** false: the operation reconciles after its own writes (queue and its kin). */
  reconcile?: boolean;
  /** On a terminal the text goes through the pager, as git log's does. */
  page?: boolean;
}

export async function run<T>(
  a: GlobalArgs,
  op: (app: App) => Promise<T>,
  text: (v: T) => Rendered,
  opts: RunOptions<T> = {},
): Promise<void> {
  const call = currentCall();
  const json = !!a.json;
  let app: App | undefined;
  try {
    await precheck(a);
    app = await openApp({ io: call.io, cwd: resolve(call.cwd, a.C ?? '.'), json, reconcile: opts.reconcile });
    const value = await op(app);
    await print(
      call.io,
      a,
      json ? ((await printed(a, value)) as T) : value,
      text,
      opts.page ? app.repo.cwd : undefined,
    );
    if (opts.exit) call.exitCode = opts.exit(value);
  } catch (e) {
    call.exitCode = reportError(call.io, json, e);
  } finally {
    if (app) closeApp(app);
  }
}

/** The result on stdout; a paged command's text goes through the pager on a terminal (lib/output/pager.ts). */
async function print<T>(io: Io, a: GlobalArgs, value: T, text: (v: T) => Rendered, pagedIn?: string): Promise<void> {
  const pager = pagedIn && !a.json && io.isTTY.stdout ? await pagerFor(io.env, pagedIn) : undefined;
  const shown = pager ? renderedText(value, text, styleOf(io, a)) : '';
  if (pager && shown) return io.page(shown, pager);
  emit(io, !!a.json, value, text, styleOf(io, a));
}

/** For commands that need no repository (demo, help-like commands). */
export async function runBare<T>(a: GlobalArgs, op: () => Promise<T>, text: (v: T) => string): Promise<void> {
  const call = currentCall();
  try {
    await precheck(a);
    const value = await op();
    emit(
      call.io,
      !!a.json,
      a.json ? await printed(a, value) : value,
      text as (v: unknown) => string,
      styleOf(call.io, a),
    );
  } catch (e) {
    call.exitCode = reportError(call.io, !!a.json, e);
  }
}

/** Piped or redirected stdin text, if any (see bin/io.ts for which stdin is read). */
export const readStdinText = (optional = false) => currentCall().stdin(optional);

/** -m TEXT, else stdin, else the editor on a terminal; a required text that is missing is a usage error. */
export async function messageArg(m: string | undefined, what: string, required: boolean): Promise<string | undefined> {
  const call = currentCall();
  const { editMessage } = await import('../lib/ops/editor.js');
  const text = m ?? call.stdin(false) ?? (required ? editMessage(call.io, what) : undefined);
  if (required && (text === undefined || !text.trim()))
    throw usageError(`${what} is required: pass -m TEXT, pipe it on stdin, or run it on a terminal for the editor`);
  return text;
}

export interface FollowArgs {
  follow?: boolean;
}

/** Results that were followed to the end of their turn (their text is then wait's). */
const FOLLOWED = new WeakSet<object>();

/**
 * --follow: stream the turn's output, readable (lib/output/stream.ts), until the task leaves
 * working, then end exactly as `lazy wait` does: where it landed, and wait's exit code (a task
 * that did not land blocked or in conflict is refused). A reader that goes away ends the
 * stream; the turn itself runs on.
 */
export async function maybeFollow<T extends { task: TaskView }>(
  app: App,
  a: GlobalArgs & FollowArgs,
  r: T,
): Promise<T> {
  if (!a.follow || r.task.status !== 'working') return r;
  const { followAndWait } = await import('../lib/ops/follow.js');
  const task = await followAndWait(app, r.task.id, await followWriter(app, a), { stop: () => !app.io.outOpen() });
  const followed = { ...r, task };
  FOLLOWED.add(followed);
  return followed;
}

/** Where the followed output goes: rendered lines on stdout; nothing under --json (one document only). */
export async function followWriter(app: App, a: GlobalArgs) {
  const { renderLog } = await import('../lib/output/stream.js');
  return (lines: string, adapter: Parameters<typeof renderLog>[0]) => {
    if (!a.json) app.io.out(renderLog(adapter, lines));
  };
}

/** The text of a command that may --follow: once followed, the task's final line as wait prints it. */
export const orFollowed =
  <T extends { task: TaskView }>(text: (v: T) => string) =>
  (v: T) =>
    FOLLOWED.has(v) ? renderWaited(v.task) : text(v);

export interface DecisionArgs {
  approveFile?: string[];
  revertFile?: string[];
  approveAll?: boolean;
  revertAll?: boolean;
}

export const decisionFlags = (a: DecisionArgs): DecisionFlags => ({
  approve: a.approveFile,
  revert: a.revertFile,
  approveAll: a.approveAll,
  revertAll: a.revertAll,
});
