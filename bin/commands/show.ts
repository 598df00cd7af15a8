import type { Argv } from 'yargs';
import { run, type GlobalArgs } from '../run.js';
import { renderShow } from '../../lib/output/tasks.js';

export const command = 'show <id>';
export const describe = 'Show a task: record, status, available actions, turns and changelog';
export const builder = (y: Argv) =>
  y.positional('id', { type: 'string', describe: 'task id or unique prefix (4+ chars)' });

export const handler = (a: GlobalArgs & { id: string }) =>
  run(
    a,
    async (app) => {
      const { showTask } = await import('../../lib/ops/query.js');
      return showTask(app, String(a.id));
    },
    renderShow,
  );
