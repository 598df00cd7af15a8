import type { Argv } from 'yargs';
import { run, type GlobalArgs } from '../run.js';
import { renderTransition } from '../../lib/output/tasks.js';

export const command = 'edit <id>';
export const describe = 'Change a task: --goal, --prompt, add --accept criteria or --tag, set --agent';
export const builder = (y: Argv) =>
  y
    .positional('id', { type: 'string' })
    .option('goal', { type: 'string' })
    .option('prompt', { type: 'string' })
    .option('accept', { type: 'string', array: true, describe: 'add an acceptance criterion (repeatable)' })
    .option('tag', { type: 'string', array: true, describe: 'add a tag (repeatable)' })
    .option('agent', { type: 'string' });

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
      return editTask(app, String(a.id), {
        goal: a.goal,
        prompt: a.prompt,
        accept: a.accept,
        tags: a.tag,
        agent: a.agent,
      });
    },
    (v) => `${renderTransition(v.task).split(':')[0]}: edited`,
  );
