import { CONTRACTS as C, type CliArgs } from '../../lib/ops/contract/index.js';
import { commandOf } from '../contract.js';
import { run, messageArg, type GlobalArgs } from '../run.js';

export const { command, describe, builder } = commandOf(C.comment);

export const handler = (a: GlobalArgs & CliArgs<typeof C.comment>) =>
  run(
    a,
    async (app) => {
      const { commentTask } = await import('../../lib/ops/comment.js');
      return commentTask(app, String(a.id), (await messageArg(a.message, 'a comment', true))!);
    },
    ({ task: v }) => `${v.id}: comment added (turn #${v.turns.length})`,
  );
