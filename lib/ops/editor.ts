import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { cancelled, usageError } from '../core/errors.js';
import { readTextInput } from '../core/fsutil.js';
import type { Io } from '../core/io.js';
import type { Json } from '../core/json.js';
import { decodeYaml, encodeYaml, YamlError } from '../store/yaml.js';
import type { App } from './app.js';
import { taskArg } from './resolve.js';
import type { EditInput } from './edit.js';

// Text a person types in their editor, as git asks for a commit message: only on a terminal,
// lines starting with '#' are instructions, and an empty result cancels (nothing is changed).

/** The editor, picked as git picks its own (GIT_EDITOR and core.editor are git's): LAZY_EDITOR, VISUAL, EDITOR, vi. */
export const editorCommand = (env: Io['env']) => env.LAZY_EDITOR || env.VISUAL || env.EDITOR || 'vi';

/** A person is there to type: both stdin and stdout are a terminal. */
export const onTerminal = (io: Io) => io.isTTY.stdin && io.isTTY.stdout;

/**
 * Opens the editor on `text` (in a file named `name`) and returns what was saved, comment lines
 * dropped, and the file (its caller removes it once the text is used); undefined off a terminal.
 */
export function editText(io: Io, text: string, name: string): { text: string; file: string } | undefined {
  if (!onTerminal(io)) return undefined;
  const file = join(mkdtempSync(join(tmpdir(), 'lazy-edit-')), name);
  writeFileSync(file, text);
  const editor = editorCommand(io.env);
  // As git runs it: through the shell, so EDITOR may carry arguments ("code --wait").
  const r = spawnSync('sh', ['-c', `${editor} "$@"`, editor, file], { stdio: 'inherit', env: { ...io.env } });
  if (r.status !== 0) {
    rmSync(dirname(file), { recursive: true, force: true });
    throw cancelled(`the editor (${editor}) exited with ${r.status ?? r.signal}: nothing was changed`, { editor });
  }
  const saved = readTextInput(file, `the text from ${editor}`)
    .split('\n')
    .filter((l) => !l.startsWith('#'))
    .join('\n');
  return { text: saved, file };
}

/** A message typed in the editor (unblock's feedback, a comment); undefined off a terminal or when empty. */
export function editMessage(io: Io, what: string): string | undefined {
  const r = editText(
    io,
    `\n# Write ${what} above. Lines starting with '#' are ignored; an empty message aborts.\n`,
    'MESSAGE.txt',
  );
  if (r) rmSync(dirname(r.file), { recursive: true, force: true });
  return r?.text.trim() || undefined;
}

/** The fields of a task a person edits: the template create and edit open. */
export interface TaskFields {
  goal: string;
  prompt: string;
  acceptance: string[];
  tags: string[];
}

const FIELDS = ['goal', 'prompt', 'acceptance', 'tags'];

export function taskTemplate(verb: 'create' | 'edit', f: TaskFields): string {
  return (
    `# ${verb === 'create' ? 'A new task' : 'The task'}: goal (one line), prompt (the agent's instructions; empty: the goal),\n` +
    `# acceptance (the criteria its turns are judged by) and tags. Save and close the editor to ${verb} it.\n` +
    `# Lines starting with '#' are ignored; an empty file cancels.\n` +
    encodeYaml({ ...f })
  );
}

/**
 * Reads the edited template; an empty one cancels. A file that does not read is kept, and the error names it,
 * so nothing typed is lost.
 */
export async function readTemplate(verb: 'create' | 'edit', r: { text: string; file: string }): Promise<TaskFields> {
  const lost = () => `; what you typed is kept in ${r.file}`;
  if (!r.text.trim()) {
    rmSync(dirname(r.file), { recursive: true, force: true });
    throw cancelled(`${verb} cancelled: the editor left nothing; nothing was changed`);
  }
  let doc: Json;
  try {
    doc = await decodeYaml(r.text);
  } catch (e) {
    // The parser's first line ends `at line 2, column 1:` (its excerpt followed): the place without the colon.
    const why = (e as Error).message.split('\n')[0]!.replace(/:\s*$/, '');
    const line = e instanceof YamlError && e.line && !/\bat line \d/.test(why) ? ` (line ${e.line})` : '';
    throw usageError(`the edited task is not valid YAML${line}: ${why}${lost()}`, {
      file: r.file,
    });
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc))
    throw usageError(`the edited task must be the fields ${FIELDS.join(', ')}${lost()}`, { file: r.file });
  const unknown = Object.keys(doc).filter((k) => !FIELDS.includes(k));
  if (unknown.length)
    throw usageError(`unknown field ${unknown.join(', ')}: the fields are ${FIELDS.join(', ')}${lost()}`, {
      file: r.file,
    });
  const text = (v: Json | undefined) => (v === null || v === undefined ? '' : String(v));
  const list = (v: Json | undefined) => (Array.isArray(v) ? v : v === null || v === undefined ? [] : [v]).map(text);
  rmSync(dirname(r.file), { recursive: true, force: true });
  return { goal: text(doc.goal), prompt: text(doc.prompt), acceptance: list(doc.acceptance), tags: list(doc.tags) };
}

/** Opens the template of `f` in the editor; undefined off a terminal. */
export async function editFields(io: Io, verb: 'create' | 'edit', f: TaskFields): Promise<TaskFields | undefined> {
  const r = editText(io, taskTemplate(verb, f), 'TASK.yaml');
  return r && readTemplate(verb, r);
}

/** create with no goal: the template in the editor, what the flags gave filled in; off a terminal, a usage error. */
export async function createInEditor(
  app: App,
  a: { prompt?: string; accept?: string[]; tag?: string[] },
): Promise<TaskFields> {
  const start = { goal: '', prompt: a.prompt ?? '', acceptance: a.accept ?? [], tags: a.tag ?? [] };
  const f = await editFields(app.io, 'create', start);
  if (!f)
    throw usageError(
      'missing <goal>: what the task should achieve (on a terminal, lazy create alone opens the editor)',
    );
  if (!f.goal.trim()) throw cancelled('create cancelled: the goal was left empty; nothing was created');
  return f;
}

/** edit with no flags: the task's fields in the editor; what changed, as editTask takes it. Off a terminal, a usage error. */
export async function editInEditor(app: App, idArg: string): Promise<EditInput> {
  const { view } = await taskArg(app, idArg);
  const cur = { goal: view.goal, prompt: view.prompt ?? '', acceptance: view.acceptance, tags: view.tags };
  const f = await editFields(app.io, 'edit', cur);
  if (!f)
    throw usageError(
      `edit needs a change: --goal, --prompt, --accept, --tag, --agent or --model (on a terminal, lazy edit ${idArg} alone opens the editor)`,
    );
  const same = (x: unknown, y: unknown) => JSON.stringify(x) === JSON.stringify(y);
  const changed = FIELDS.filter((k) => !same(f[k as keyof TaskFields], cur[k as keyof TaskFields]));
  if (!changed.length) throw cancelled(`edit cancelled: nothing was changed in ${view.id}`);
  if (!f.goal.trim()) throw cancelled(`edit cancelled: the goal was left empty; ${view.id} was not changed`);
  return {
    ...(changed.includes('goal') ? { goal: f.goal } : {}),
    ...(changed.includes('prompt') ? { prompt: f.prompt } : {}),
    ...(changed.includes('acceptance') ? { setAcceptance: f.acceptance } : {}),
    ...(changed.includes('tags') ? { setTags: f.tags } : {}),
  };
}
