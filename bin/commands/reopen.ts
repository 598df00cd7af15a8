import type { Argv } from 'yargs';
import { run, type GlobalArgs } from '../run.js';
import { renderTransition } from '../../lib/output/tasks.js';

export const command = 'reopen <id>';
export const describe = 'Reopen a complete or abandoned task';
export const builder = (y: Argv) =>
  y
    .positional('id', { type: 'string', describe: 'the task to reopen' })
    .option('reason', { alias: 'm', type: 'string', describe: 'why (required for a complete task)' });

export const handler = (a: GlobalArgs & { id: string; reason?: string }) =>
  run(
    a,
    async (app) => {
      const { reopenTask } = await import('../../lib/ops/close.js');
      return reopenTask(app, String(a.id), a.reason);
    },
    (v) => renderTransition(v.task),
  );
