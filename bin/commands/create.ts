import { CONTRACTS as C, type CliArgs } from '../../lib/ops/contract/index.js';
import { commandOf } from '../contract.js';
import { run, readStdinText, type GlobalArgs } from '../run.js';

export const { command, describe, builder } = commandOf(C.create);

type Args = GlobalArgs & CliArgs<typeof C.create>;

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
        model: a.model,
      });
    },
    (v) => v.task.id,
  );
