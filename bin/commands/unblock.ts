import { CONTRACTS as C } from '../../lib/ops/contract/index.js';
import { commandOf } from '../contract.js';
import {
  run,
  messageArg,
  maybeFollow,
  orFollowed,
  decisionFlags,
  type DecisionArgs,
  type GlobalArgs,
  type FollowArgs,
} from '../run.js';
import { renderStarted } from '../../lib/output/turns.js';

export const { command, describe, builder } = commandOf(C.unblock);

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
