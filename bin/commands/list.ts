import type { Argv } from 'yargs';
import { run, type GlobalArgs } from '../run.js';
import { renderList, renderTree } from '../../lib/output/tasks.js';

export const command = ['list', 'ls'];
export const describe = 'List tasks (non-terminal ones unless --all or --status)';
export const builder = (y: Argv) =>
  y
    .option('all', { alias: 'a', type: 'boolean', describe: 'include complete and abandoned tasks' })
    .option('status', {
      alias: 's',
      type: 'string',
      array: true,
      describe: 'only these statuses (repeatable or comma-separated)',
    })
    .option('tag', { alias: 't', type: 'string', describe: 'only tasks with this tag' })
    .option('parent', { type: 'string', describe: 'only subtasks of ID' })
    .option('tree', { type: 'boolean', describe: 'show subtasks under their parents' })
    .option('queued', { type: 'boolean', describe: 'only queued tasks, in the order a worker picks them' })
    .option('paused', { type: 'boolean', describe: 'only paused tasks' });

interface Args extends GlobalArgs {
  all?: boolean;
  status?: string[];
  tag?: string;
  parent?: string;
  tree?: boolean;
  queued?: boolean;
  paused?: boolean;
}

export const handler = (a: Args) =>
  run(
    a,
    async (app) => {
      const { listTasks } = await import('../../lib/ops/query.js');
      const { all, status, tag, parent, queued, paused } = a;
      return listTasks(app, { all, status, tag, parent, queued, paused });
    },
    a.tree ? renderTree : renderList,
  );
