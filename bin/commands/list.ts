import type { Argv } from 'yargs';
import { run, type GlobalArgs } from '../run.js';
import { renderListing } from '../../lib/output/tasks.js';
import { PIPED_LINES } from '../../lib/output/piped-line.js';
import { filterOptions } from '../families.js';

const filtered = (a: Args) => !!(a.status?.length || a.tag?.length || a.search || a.parent || a.queued || a.paused);

export const command = ['list', 'ls'];
export const describe = 'List tasks (non-terminal ones unless --all or --status)';
export const builder = (y: Argv) =>
  filterOptions(y)
    .option('all', { alias: 'a', type: 'boolean', describe: 'include complete and abandoned tasks' })
    .option('status', {
      alias: 's',
      type: 'string',
      array: true,
      describe: 'only these statuses (repeatable or comma-separated)',
    })
    .option('parent', { type: 'string', describe: 'only subtasks of ID' })
    .option('tree', { type: 'boolean', describe: 'show subtasks under their parents' })
    .option('queued', { type: 'boolean', describe: 'only queued tasks, in the order a worker picks them' })
    .option('paused', { type: 'boolean', describe: 'only paused tasks' });

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
      return listLines(app, { all, status, tag, search, sort, limit, parent, queued, paused, tree }, PIPED_LINES);
    },
    (rows) => renderListing(rows, !!a.tree, filtered(a)),
  );
