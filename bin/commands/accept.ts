import type { Argv } from 'yargs';
import { run, type GlobalArgs } from '../run.js';
import { renderAccepted } from '../../lib/output/review.js';

export const command = 'accept <id>';
export const describe = 'Squash-merge the task into its target (the parent task branch, or the branch it came from)';
export const builder = (y: Argv) =>
  y
    .positional('id', { type: 'string' })
    .option('yes', { alias: 'y', type: 'boolean', describe: 'do not ask for confirmation' })
    .option('approve-file', { type: 'string', array: true, describe: 'keep the change to a protected file' })
    .option('revert-file', { type: 'string', array: true, describe: 'restore a protected file before merging' })
    .option('approve-all', { type: 'boolean' })
    .option('revert-all', { type: 'boolean' });

interface Args extends GlobalArgs {
  id: string;
  yes?: boolean;
  approveFile?: string[];
  revertFile?: string[];
  approveAll?: boolean;
  revertAll?: boolean;
}

export const handler = (a: Args) =>
  run(
    a,
    async (app) => {
      const { acceptTask } = await import('../../lib/ops/accept.js');
      return acceptTask(app, String(a.id), {
        decisions: { approve: a.approveFile, revert: a.revertFile, approveAll: a.approveAll, revertAll: a.revertAll },
        confirm: a.yes ? undefined : app.io.confirm,
      });
    },
    renderAccepted,
  );
