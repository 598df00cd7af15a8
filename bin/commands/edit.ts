import type { Argv } from 'yargs';
import { run, type GlobalArgs } from '../run.js';
import { renderTransition } from '../../lib/output/tasks.js';

export const command = 'edit <id>';
export const describe = 'Change a task: --goal, --prompt, add --accept criteria or --tag, set --agent';
export const builder = (y: Argv) =>
  y
    .positional('id', { type: 'string', describe: 'the task to change' })
    .option('goal', { type: 'string', describe: 'replace the goal' })
    .option('prompt', { type: 'string', describe: 'replace the instructions for the agent' })
    .option('accept', { type: 'string', array: true, describe: 'add an acceptance criterion (repeatable)' })
    .option('tag', { type: 'string', array: true, describe: 'add a tag (repeatable)' })
    .option('agent', { type: 'string', describe: 'the agent to run this task with' });

interface Args extends GlobalArgs {
  id: string;
  goal?: string;
  prompt?: string;
  accept?: string[];
  tag?: string[];
  agent?: string;
}

export const handler = (a: Args) =>
  run(
    a,
    async (app) => {
      const { editTask } = await import('../../lib/ops/review.js');
      const flags = { goal: a.goal, prompt: a.prompt, accept: a.accept, tags: a.tag, agent: a.agent };
      // No change named: the task's fields in the editor on a terminal, a usage error elsewhere.
      const none = Object.values(flags).every((v) => v === undefined);
      const edit = none ? await (await import('../../lib/ops/editor.js')).editInEditor(app, String(a.id)) : flags;
      return editTask(app, String(a.id), edit);
    },
    (v) => `${renderTransition(v.task).split(':')[0]}: edited`,
  );
