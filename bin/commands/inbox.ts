import { CONTRACTS as C, type CliArgs } from '../../lib/ops/contract/index.js';
import { commandOf } from '../contract.js';
import { run, type GlobalArgs } from '../run.js';
import { renderInbox } from '../../lib/output/inbox.js';

export const { command, describe, builder } = commandOf(C.inbox);

type Args = GlobalArgs & CliArgs<typeof C.inbox>;

export const handler = (a: Args) =>
  run(
    a,
    async (app) => {
      const { inbox } = await import('../../lib/ops/inbox.js');
      return inbox(app, { tag: a.tag, search: a.search, sort: a.sort, limit: a.limit });
    },
    (items) => renderInbox(items, !!(a.tag?.length || a.search)),
  );
