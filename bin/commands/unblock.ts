import type { Argv } from 'yargs';
import { run, messageArg, maybeFollow, type GlobalArgs, type FollowArgs } from '../run.js';
import { renderStarted } from '../../lib/output/turns.js';

export const command = 'unblock <id>';
export const describe = 'Send feedback and start the next turn (-m, stdin or $EDITOR)';
export const builder = (y: Argv) =>
  y
    .positional('id', { type: 'string' })
    .option('message', { alias: 'm', type: 'string', describe: 'the feedback' })
    .option('approve-file', { type: 'string', array: true, describe: 'keep the change to a protected file' })
    .option('revert-file', { type: 'string', array: true, describe: 'restore a protected file on the task branch' })
    .option('approve-all', { type: 'boolean' })
    .option('revert-all', { type: 'boolean' })
    .option('follow', { alias: 'f', type: 'boolean', describe: "stream the turn's output until it ends" });

interface Args extends GlobalArgs, FollowArgs {
  id: string;
  message?: string;
  approveFile?: string[];
  revertFile?: string[];
  approveAll?: boolean;
  revertAll?: boolean;
}

export const handler = (a: Args) =>
  run(
    a,
    async (app) => {
      const { unblockTask } = await import('../../lib/ops/turn.js');
      const text = messageArg(a.message, 'feedback', true)!;
      const flags = { approve: a.approveFile, revert: a.revertFile, approveAll: a.approveAll, revertAll: a.revertAll };
      return maybeFollow(app, a, await unblockTask(app, String(a.id), text, flags));
    },
    renderStarted,
  );
