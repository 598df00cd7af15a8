import { CONTRACTS as C, type CliArgs } from '../../lib/ops/contract/index.js';
import { commandOf } from '../contract.js';
import { run, maybeFollow, orFollowed, type GlobalArgs } from '../run.js';
import { renderStarted } from '../../lib/output/turns.js';

export const { command, describe, builder } = commandOf(C.start);

export const handler = (a: GlobalArgs & CliArgs<typeof C.start>) =>
  run(
    a,
    async (app) => {
      const { startTask } = await import('../../lib/ops/start.js');
      return maybeFollow(app, a, await startTask(app, String(a.id), { agent: a.agent, model: a.model }));
    },
    orFollowed(renderStarted),
  );
