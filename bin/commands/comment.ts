import type { Argv } from 'yargs';
import { run, messageArg, type GlobalArgs } from '../run.js';

export const command = 'comment <id>';
export const describe = 'Add a comment (a human turn that changes no status)';
export const builder = (y: Argv) =>
  y
    .positional('id', { type: 'string', describe: 'the task to comment on' })
    .option('message', { alias: 'm', type: 'string', describe: 'the comment (or pipe it on stdin)' });

export const handler = (a: GlobalArgs & { id: string; message?: string }) =>
  run(
    a,
    async (app) => {
      const { commentTask } = await import('../../lib/ops/comment.js');
      return commentTask(app, String(a.id), (await messageArg(a.message, 'a comment', true))!);
    },
    ({ task: v }) => `${v.id}: comment added (turn #${v.turns.length})`,
  );
