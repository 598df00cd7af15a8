import type { Argv } from 'yargs';
import { run, type GlobalArgs } from '../run.js';
import { renderLog } from '../../lib/output/log.js';

export const command = 'log <id>';
export const describe = "The task's history, one line per commit";
export const builder = (y: Argv) => y.positional('id', { type: 'string', describe: 'the task whose history to print' });

export const handler = (a: GlobalArgs & { id: string }) =>
  run(
    a,
    async (app) => {
      const { taskLog } = await import('../../lib/ops/log.js');
      return taskLog(app, String(a.id));
    },
    renderLog,
    { page: true }, // on a terminal, through the pager, as git log
  );
