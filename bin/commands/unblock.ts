import type { Argv } from 'yargs';
import {
  run,
  messageArg,
  maybeFollow,
  orFollowed,
  decisionOptions,
  decisionFlags,
  type DecisionArgs,
  type GlobalArgs,
  type FollowArgs,
} from '../run.js';
import { renderStarted } from '../../lib/output/turns.js';

export const command = 'unblock <id>';
export const describe = 'Send feedback and start the next turn (-m, stdin or $EDITOR)';
export const builder = (y: Argv) =>
  decisionOptions(
    y
      .positional('id', { type: 'string', describe: 'the task to send feedback to' })
      .option('message', { alias: 'm', type: 'string', describe: 'the feedback' })
      .option('follow', { alias: 'f', type: 'boolean', describe: "stream the turn's output until it ends" }),
    'on the task branch',
  );

interface Args extends GlobalArgs, FollowArgs, DecisionArgs {
  id: string;
  message?: string;
}

export const handler = (a: Args) =>
  run(
    a,
    async (app) => {
      const { unblockTask } = await import('../../lib/ops/turn.js');
      const text = (await messageArg(a.message, 'feedback', true))!;
      return maybeFollow(app, a, await unblockTask(app, String(a.id), text, decisionFlags(a)));
    },
    orFollowed(renderStarted),
  );
