import { CONTRACTS as C } from '../../lib/ops/contract/index.js';
import { commandOf } from '../contract.js';
import { run, type GlobalArgs } from '../run.js';
import { renderListing } from '../../lib/output/tasks.js';

const filtered = (a: Args) => !!(a.status?.length || a.tag?.length || a.search || a.parent || a.queued || a.paused);

export const { command, describe, builder } = commandOf(C.list);

interface Args extends GlobalArgs {
  all?: boolean;
  status?: string[];
  tag?: string[];
  search?: string;
  sort?: string;
  limit?: number;
  parent?: string;
  tree?: boolean;
  queued?: boolean;
  paused?: boolean;
}

export const handler = (a: Args) =>
  run(
    a,
    async (app) => {
      const { listLines } = await import('../../lib/ops/query.js');
      const { all, status, tag, search, sort, limit, parent, queued, paused, tree } = a;
      return listLines(app, { all, status, tag, search, sort, limit, parent, queued, paused, tree });
    },
    (rows) => renderListing(rows, !!a.tree, filtered(a)),
  );
