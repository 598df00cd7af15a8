import { CONTRACTS as C, type CliArgs } from '../../lib/ops/contract/index.js';
import { commandOf } from '../contract.js';
import { run, messageArg, maybeFollow, orFollowed, decisionFlags, type GlobalArgs } from '../run.js';
import { renderStarted } from '../../lib/output/turns.js';

export const { command, describe, builder } = commandOf(C.unblock);

type Args = GlobalArgs & CliArgs<typeof C.unblock>;

export const handler = (a: Args) =>
  run(
    a,
    async (app) => {
      const { unblockTask } = await import('../../lib/ops/unblock.js');
      const text = (await messageArg(a.message, 'feedback', true))!;
      return maybeFollow(
        app,
        a,
        await unblockTask(app, String(a.id), text, decisionFlags(a), {
          tokens: a.budget,
          cost_usd: a.budgetUsd,
        }),
      );
    },
    orFollowed(renderStarted),
  );
