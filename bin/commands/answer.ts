import { CONTRACTS as C, type CliArgs } from '../../lib/ops/contract/index.js';
import { commandOf } from '../contract.js';
import { run, messageArg, maybeFollow, orFollowed, type GlobalArgs } from '../run.js';
import { renderStarted } from '../../lib/output/turns.js';

export const { command, describe, builder } = commandOf(C.answer);

export const handler = (a: GlobalArgs & CliArgs<typeof C.answer>) =>
  run(
    a,
    async (app) => {
      const { answerTask } = await import('../../lib/ops/answer.js');
      return maybeFollow(
        app,
        a,
        await answerTask(app, String(a.id), (await messageArg(a.message, 'an answer', true))!),
      );
    },
    orFollowed(renderStarted),
  );
