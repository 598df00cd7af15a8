import { resolve } from 'node:path';
import { sanitizeLine, sanitizeProse } from '../core/sanitize.js';
import { usageError, notAllowed, LazyError } from '../core/errors.js';
import { MAX_TEXT_BYTES, readTextInput } from '../core/fsutil.js';
import { isTerminal } from '../model/status.js';
import type { TaskView } from '../model/fold.js';
import { resolveTaskId } from '../store/refs.js';
import { currentBranch } from '../workspace/branch/index.js';
import type { App } from './app.js';
import { taskBranch } from '../core/names.js';

export interface CreateInput {
  goal: string[];
  prompt?: string;
  promptFile?: string;
  /** The port's stdin text, for --prompt-file - (a terminal's is read from fd 0, like git -F -). */
  stdin?: string;
  accept?: string[];
  parent?: string;
  tags?: string[];
  agent?: string;
  model?: string;
}

const AGENT_NAME = /^[A-Za-z0-9_.-]+$/;
/**
 * Every text a person or an agent gives lazy to store (a goal, a prompt, a criterion, a tag, a
 * comment, feedback, an answer, a question, a reason) passes here before anything is written: a
 * document must stay small enough for every clone to read (writeDoc also refuses a whole one).
 */
export function boundedText(what: string, text: string): string {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > MAX_TEXT_BYTES) {
    throw usageError(
      `${what} is ${bytes} bytes; the limit is ${MAX_TEXT_BYTES}. ` +
        `Put long material in a file in the repository and refer to it`,
      { bytes, limit: MAX_TEXT_BYTES },
    );
  }
  return text;
}

export const tagOf = (t: string) => sanitizeLine(t.trim()).replace(/[\s,]+/g, '-');

/** An agent's name as a task stores it: a config key's word, of a bounded length. */
export function agentName(name: string): string {
  if (!AGENT_NAME.test(boundedText('the agent name', name)))
    throw usageError(`agent name '${name}' may only use letters, digits, '.', '_' and '-'`);
  return name;
}

/** As schemas/defs.schema.json's model: it reaches a CLI's argv, so it never starts like an option. */
const MODEL_NAME = /^[A-Za-z0-9][A-Za-z0-9._:/@+[\]-]*$/;

/** A model's name as a task stores it and an agent's CLI receives it (`--model <name>`). */
export function modelName(name: string): string {
  if (name.length > 200 || !MODEL_NAME.test(name))
    throw usageError(
      `model name '${sanitizeLine(name).slice(0, 200)}' may only use letters, digits and '.', '_', ':', '/', '@', '+', ` +
        `'[', ']', '-', starting with a letter or digit (at most 200 characters)`,
    );
  return name;
}

export async function createTask(app: App, input: CreateInput): Promise<{ task: TaskView }> {
  const goal = boundedText('the goal', sanitizeLine(input.goal.join(' ').trim()));
  if (!goal) throw usageError('a goal is required: lazy create <goal…>');
  const sources = [input.prompt !== undefined, input.promptFile !== undefined].filter(Boolean).length;
  if (sources > 1) throw usageError('give the prompt once: --prompt or --prompt-file');
  let prompt =
    input.prompt ??
    (input.promptFile === '-' && input.stdin !== undefined
      ? input.stdin
      : input.promptFile !== undefined
        ? readPromptFile(app.repo.cwd, input.promptFile)
        : undefined);
  prompt = prompt !== undefined && prompt.trim() ? boundedText('the prompt', sanitizeProse(prompt)) : undefined;
  if (input.agent !== undefined) agentName(input.agent);
  if (input.model !== undefined) modelName(input.model);

  let parent: string | null = null;
  let base = currentBranch(app.repo);
  if (input.parent) {
    parent = await resolveTaskId(app.repo.cwd, input.parent);
    const p = await app.store.view(parent);
    if (isTerminal(p.status)) {
      throw notAllowed(
        'create',
        p.status,
        p.available_actions,
        `parent ${parent} is ${p.status}; a subtask needs a parent that is still open`,
        { parent },
      );
    }
    base = taskBranch(parent);
  }
  const tags = [...new Set((input.tags ?? []).map(tagOf).filter(Boolean))];
  for (const tag of tags) boundedText('a tag', tag);
  const acceptance = (input.accept ?? [])
    .map((a) => boundedText('a criterion', sanitizeProse(a.trim())))
    .filter(Boolean);
  const { view } = await app.store.create({
    goal,
    prompt: prompt ?? null,
    acceptance,
    tags,
    parent,
    agent: input.agent ?? null,
    ...(input.model ? { model: input.model } : {}),
    base,
  });
  return { task: view };
}

function readPromptFile(cwd: string, file: string): string {
  try {
    return readTextInput(file === '-' ? 0 : resolve(cwd, file), `--prompt-file ${file}`);
  } catch (e) {
    throw e instanceof LazyError ? e : usageError(`cannot read --prompt-file ${file}: ${(e as Error).message}`);
  }
}
