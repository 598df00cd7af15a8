import { CONTRACTS as C } from '../../lib/ops/contract/index.js';
import { commandOf } from '../contract.js';
import { run, maybeFollow, orFollowed, type GlobalArgs, type FollowArgs } from '../run.js';
import { renderStarted } from '../../lib/output/turns.js';

export const { command, describe, builder } = commandOf(C.resume);

export const handler = (a: GlobalArgs & FollowArgs & { id: string }) =>
  run(
    a,
    async (app) => {
      const { resumeTask } = await import('../../lib/ops/turn.js');
      return maybeFollow(app, a, await resumeTask(app, String(a.id)));
    },
    orFollowed(renderStarted),
  );
