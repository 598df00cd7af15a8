import { CONTRACTS as C, type CliArgs } from '../../lib/ops/contract/index.js';
import { commandOf } from '../contract.js';
import { run, messageArg, type GlobalArgs } from '../run.js';
import { renderAsked } from '../../lib/output/turns.js';

export const { command, describe, builder } = commandOf(C.ask);

export const handler = (a: GlobalArgs & CliArgs<typeof C.ask>) =>
  run(
    a,
    async (app) => {
      const { askTask } = await import('../../lib/ops/ask.js');
      return askTask(app, String(a.id), (await messageArg(a.message, 'a question', true))!, a.timeout);
    },
    renderAsked,
  );
