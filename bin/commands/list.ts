import { CONTRACTS as C, type CliArgs } from '../../lib/ops/contract/index.js';
import { commandOf } from '../contract.js';
import { run, type GlobalArgs } from '../run.js';
import { renderListing } from '../../lib/output/tasks.js';
import { PIPED_LINES } from '../../lib/output/piped-line.js';

const filtered = (a: Args) => !!(a.status?.length || a.tag?.length || a.search || a.parent || a.queued || a.paused);

export const { command, describe, builder } = commandOf(C.list);

type Args = GlobalArgs & CliArgs<typeof C.list>;

export const handler = (a: Args) =>
  run(
    a,
    async (app) => {
      const { listLines } = await import('../../lib/ops/list.js');
      const { all, status, tag, search, sort, limit, parent, queued, paused, tree } = a;
      return listLines(app, { all, status, tag, search, sort, limit, parent, queued, paused, tree }, PIPED_LINES);
    },
    (rows) => renderListing(rows, !!a.tree, filtered(a)),
  );
