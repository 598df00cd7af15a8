import type { Argv } from 'yargs';
import { run, readStdinText, type GlobalArgs } from '../run.js';

export const command = 'create [goal..]';
export const describe = 'Create a task and print its id';
export const builder = (y: Argv) =>
  y
    .positional('goal', { type: 'string', array: true, describe: 'what the task should achieve' })
    .option('prompt', { type: 'string', describe: 'instructions for the agent (default: the goal)' })
    .option('prompt-file', { type: 'string', describe: 'read the prompt from a file (- for stdin)' })
    .option('accept', { type: 'string', array: true, describe: 'an acceptance criterion (repeatable)' })
    .option('parent', { type: 'string', describe: 'make this a subtask of ID' })
    .option('tag', { type: 'string', array: true, describe: 'a tag (repeatable)' })
    .option('agent', { type: 'string', describe: 'agent to run this task with' });

interface Args extends GlobalArgs {
  goal?: string[];
  prompt?: string;
  promptFile?: string;
  accept?: string[];
  parent?: string;
  tag?: string[];
  agent?: string;
}

export const handler = (a: Args) =>
  run(
    a,
    async (app) => {
      const { createTask } = await import('../../lib/ops/create.js');
      const goal = (a.goal ?? []).map(String);
      // No goal: the editor on a terminal, with what the flags gave filled in.
      const typed = goal.length ? undefined : await (await import('../../lib/ops/editor.js')).createInEditor(app, a);
      // Stdin is read only when asked for (--prompt-file -): `sleep 4 | lazy create x` never waits on it.
      const stdin = a.promptFile === '-' ? readStdinText(false) : undefined;
      return createTask(app, {
        goal: typed ? [typed.goal] : goal,
        prompt: typed ? typed.prompt : a.prompt,
        promptFile: typed ? undefined : a.promptFile,
        stdin,
        accept: typed ? typed.acceptance : a.accept,
        parent: a.parent,
        tags: typed ? typed.tags : a.tag,
        agent: a.agent,
      });
    },
    (v) => v.task.id,
  );
