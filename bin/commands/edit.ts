import { CONTRACTS as C, type CliArgs } from '../../lib/ops/contract/index.js';
import { commandOf } from '../contract.js';
import { run, type GlobalArgs } from '../run.js';
import { renderTransition } from '../../lib/output/tasks.js';

export const { command, describe, builder } = commandOf(C.edit);

type Args = GlobalArgs & CliArgs<typeof C.edit>;

export const handler = (a: Args) =>
  run(
    a,
    async (app) => {
      const { editTask } = await import('../../lib/ops/edit.js');
      const flags = { goal: a.goal, prompt: a.prompt, accept: a.accept, tags: a.tag, agent: a.agent, model: a.model };
      // No change named: the task's fields in the editor on a terminal, a usage error elsewhere.
      const none = Object.values(flags).every((v) => v === undefined);
      const edit = none ? await (await import('../../lib/ops/editor.js')).editInEditor(app, String(a.id)) : flags;
      return editTask(app, String(a.id), edit);
    },
    (v) => `${renderTransition(v.task).split(':')[0]}: edited`,
  );
