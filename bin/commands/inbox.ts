import type { Argv } from 'yargs';
import { run, type GlobalArgs } from '../run.js';
import { renderInbox } from '../../lib/output/inbox.js';
import { filterOptions } from '../families.js';

export const command = 'inbox';
export const describe = 'Tasks that need a human, oldest first, with what they need';
export const builder = (y: Argv) => filterOptions(y);

type Args = GlobalArgs & { tag?: string[]; search?: string; sort?: string; limit?: number };

export const handler = (a: Args) =>
  run(
    a,
    async (app) => {
      const { inbox } = await import('../../lib/ops/review.js');
      return inbox(app, { tag: a.tag, search: a.search, sort: a.sort, limit: a.limit });
    },
    (items) => renderInbox(items, !!(a.tag?.length || a.search)),
  );
