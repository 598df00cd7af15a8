import { CONTRACTS as C, type CliArgs } from '../../lib/ops/contract/index.js';
import { commandOf } from '../contract.js';
import { run, type GlobalArgs } from '../run.js';
import { renderLog } from '../../lib/output/log.js';

export const { command, describe, builder } = commandOf(C.log);

export const handler = (a: GlobalArgs & CliArgs<typeof C.log>) =>
  run(
    a,
    async (app) => {
      const { taskLog } = await import('../../lib/ops/log.js');
      return taskLog(app, String(a.id));
    },
    renderLog,
    { page: true }, // on a terminal, through the pager, as git log
  );
