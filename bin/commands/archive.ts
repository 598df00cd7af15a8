import { CONTRACTS as C, type CliArgs } from '../../lib/ops/contract/index.js';
import { commandOf } from '../contract.js';
import { run, type GlobalArgs } from '../run.js';
import { renderArchive } from '../../lib/output/sync.js';

export const { command, describe, builder } = commandOf(C.archive);

export const handler = (a: GlobalArgs & CliArgs<typeof C.archive>) =>
  run(
    a,
    async (app) => {
      const { archiveOp } = await import('../../lib/ops/archive.js');
      return archiveOp(app, a.olderThan === undefined ? undefined : Number(a.olderThan));
    },
    renderArchive,
  );
