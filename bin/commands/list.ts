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
    .option('tree', { type: 'boolean', describe: 'show subtasks under their parents' });

interface Args extends GlobalArgs {
  all?: boolean;
  status?: string[];
  tag?: string;
  parent?: string;
  tree?: boolean;
}

export const handler = (a: Args) =>
  run(
    a,
    async (app) => {
      const { listTasks } = await import('../../lib/ops/query.js');
      return listTasks(app, { all: a.all, status: a.status, tag: a.tag, parent: a.parent });
    },
    a.tree ? renderTree : renderList,
  );
