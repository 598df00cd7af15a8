import type { Argv } from 'yargs';
import { run, styleOf, type GlobalArgs } from '../run.js';
import { renderDiff } from '../../lib/output/review.js';

export const command = 'diff <id>';
export const describe = 'The task branch against its base';
export const builder = (y: Argv) =>
  y
    .positional('id', { type: 'string', describe: 'the task whose branch to diff' })
    .option('stat', { type: 'boolean', describe: 'a diffstat only' });

export const handler = (a: GlobalArgs & { id: string; stat?: boolean }) =>
  run(
    a,
    async (app) => {
      const { taskDiff } = await import('../../lib/ops/review.js');
      return taskDiff(app, String(a.id), !!a.stat, !a.json && styleOf(app.io, a).color);
    },
    renderDiff,
    { page: true }, // on a terminal, through the pager, as git diff
  );
