import { CONTRACTS as C, type CliArgs } from '../../lib/ops/contract/index.js';
import { commandOf } from '../contract.js';
import { run, messageArg, maybeFollow, orFollowed, type GlobalArgs } from '../run.js';
import { renderRound } from '../../lib/output/rounds.js';

export const { command, describe, builder } = commandOf(C.repair);

type Args = GlobalArgs & CliArgs<typeof C.repair>;

export const handler = (a: Args) =>
  run(
    a,
    async (app) => {
      const { repairTask } = await import('../../lib/ops/round/index.js');
      const text = (await messageArg(a.message, 'the prompt', true))!;
      return maybeFollow(app, a, await repairTask(app, String(a.id), { text, agent: a.agent }));
    },
    orFollowed(renderRound),
  );
