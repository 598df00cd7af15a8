import type { Argv } from 'yargs';
import { run, type GlobalArgs } from '../run.js';
import { renderWaited } from '../../lib/output/turns.js';

export const command = 'wait <id>';
export const describe = 'Block until the task leaves working; exit 0 when it is blocked or in conflict';
export const builder = (y: Argv) =>
  y
    .positional('id', { type: 'string' })
    .option('timeout', { type: 'number', describe: 'give up after S seconds (exit 5)' });

export const handler = (a: GlobalArgs & { id: string; timeout?: number }) =>
  run(
    a,
    async (app) => {
      const { waitTask } = await import('../../lib/ops/wait.js');
      return waitTask(app, String(a.id), a.timeout);
    },
    renderWaited,
  );
