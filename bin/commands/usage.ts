import { CONTRACTS as C, type CliArgs } from '../../lib/ops/contract/index.js';
import { commandOf } from '../contract.js';
import { run, type GlobalArgs } from '../run.js';
import { renderUsage } from '../../lib/output/usage.js';

export const { command, describe, builder } = commandOf(C.usage);

export const handler = (a: GlobalArgs & CliArgs<typeof C.usage>) =>
  run(
    a,
    async (app) => {
      const { usage } = await import('../../lib/ops/usage.js');
      return usage(app, { by: a.by, since: a.since, until: a.until });
    },
    renderUsage,
  );
