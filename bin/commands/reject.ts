import type { Argv } from 'yargs';
import { run, type GlobalArgs } from '../run.js';
import { renderClosed } from '../../lib/output/tasks.js';

export const command = 'reject <id>';
export const describe = 'Reject the work of a task (→ abandoned)';
export const builder = (y: Argv) => y
  .positional('id', { type: 'string' })
  .option('message', { alias: 'm', type: 'string', describe: 'the reason' })
  .option('delete-branch', { type: 'boolean', describe: 'delete the task branch even if it holds commits merged nowhere' });

export const handler = (a: GlobalArgs & { id: string; message?: string; deleteBranch?: boolean }) => run(a, async (app) => {
  const { closeTask } = await import('../../lib/ops/close.js');
  return closeTask(app, String(a.id), 'reject', { reason: a.message, deleteBranch: a.deleteBranch });
}, renderClosed);
