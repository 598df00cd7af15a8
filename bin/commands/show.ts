import type { Argv } from 'yargs';
import { run, type GlobalArgs } from '../run.js';
import { renderShow } from '../../lib/output/tasks.js';
import { renderMarkdown } from '../../lib/output/review.js';

export const command = 'show <id>';
export const describe = 'Show a task: record, status, available actions, turns and changelog';
export const builder = (y: Argv) =>
  y.positional('id', { type: 'string', describe: 'the task to show' }).option('markdown', {
    type: 'boolean',
    describe: 'print the review as the Markdown pull request body lazy submit hands to forge.pr_command',
  });

/** On a terminal the text goes through the pager, as git show's does. */
const PAGED = { page: true };

export const handler = (a: GlobalArgs & { id: string; markdown?: boolean }) =>
  a.markdown
    ? run(
        a,
        async (app) => (await import('../../lib/ops/query.js')).showMarkdown(app, String(a.id)),
        renderMarkdown,
        undefined,
        PAGED,
      )
    : run(
        a,
        async (app) => {
          const { showTask } = await import('../../lib/ops/query.js');
          return showTask(app, String(a.id));
        },
        renderShow,
        undefined,
        PAGED,
      );
