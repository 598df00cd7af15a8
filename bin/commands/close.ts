import type { Argv } from 'yargs';
import { run, type GlobalArgs } from '../run.js';
import { renderClosed } from '../../lib/output/tasks.js';

// close and reject share everything but their intent; reject.ts reuses this module.
export function abandonCommand(action: 'close' | 'reject', describe: string) {
  return {
    command: `${action} <id>`,
    describe,
    builder: (y: Argv) =>
      y
        .positional('id', { type: 'string', describe: `the task to ${action}` })
        .option('message', { alias: 'm', type: 'string', describe: 'the reason' })
        .option('delete-branch', {
          type: 'boolean',
          describe: 'delete the task branch even if it holds commits merged nowhere',
        }),
    handler: (a: GlobalArgs & { id: string; message?: string; deleteBranch?: boolean }) =>
      run(
        a,
        async (app) => {
          const { closeTask } = await import('../../lib/ops/close.js');
          return closeTask(app, String(a.id), action, { reason: a.message, deleteBranch: a.deleteBranch });
        },
        renderClosed,
      ),
  };
}

export const { command, describe, builder, handler } = abandonCommand(
  'close',
  'Close a task that will not be done (→ abandoned)',
);
