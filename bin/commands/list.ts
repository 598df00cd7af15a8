import type { Argv } from 'yargs';
import { run, type GlobalArgs } from '../run.js';
import { renderListing } from '../../lib/output/tasks.js';
import { PIPED_LINES } from '../../lib/output/piped-line.js';
import { SORTS } from '../../lib/ops/sorts.js';

const filtered = (a: Args) => !!(a.status?.length || a.tag?.length || a.search || a.parent || a.queued || a.paused);

export const command = ['list', 'ls'];
export const describe = 'List tasks (non-terminal ones unless --all or --status)';
/** --tag, --search, --sort, --limit: list's and inbox's shared filters. */
export const filterOptions = (y: Argv) =>
  y
    .option('tag', {
      alias: 't',
      type: 'string',
      array: true,
      describe: 'only tasks with this tag (repeat: all must match)',
    })
    .option('search', { type: 'string', describe: 'only tasks whose goal, prompt or criteria contain TEXT (any case)' })
    .option('sort', { choices: SORTS, describe: 'order: created (oldest first), updated (newest first), priority' })
    .option('limit', { alias: 'n', type: 'number', describe: 'print at most N tasks' });

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
