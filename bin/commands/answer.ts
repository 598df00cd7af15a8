import type { Argv } from 'yargs';
import { run, messageArg, maybeFollow, orFollowed, type GlobalArgs, type FollowArgs } from '../run.js';
import { renderStarted } from '../../lib/output/turns.js';

export const command = 'answer <id>';
export const describe = "Answer a pending decision (the agent's question, or a missing completion condition)";
export const builder = (y: Argv) =>
  y
    .positional('id', { type: 'string', describe: 'the task whose decision to answer' })
    .option('message', { alias: 'm', type: 'string', describe: 'the answer' })
    .option('follow', { alias: 'f', type: 'boolean', describe: "stream the turn's output until it ends" });

export const handler = (a: GlobalArgs & FollowArgs & { id: string; message?: string }) =>
  run(
    a,
    async (app) => {
      const { answerTask } = await import('../../lib/ops/turn.js');
      return maybeFollow(
        app,
        a,
        await answerTask(app, String(a.id), (await messageArg(a.message, 'an answer', true))!),
      );
    },
    orFollowed(renderStarted),
  );
