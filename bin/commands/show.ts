import { CONTRACTS as C, type CliArgs } from '../../lib/ops/contract/index.js';
import { commandOf } from '../contract.js';
import { run, type GlobalArgs } from '../run.js';
import { renderShow } from '../../lib/output/tasks.js';
import { renderMarkdown } from '../../lib/output/review.js';

export const { command, describe, builder } = commandOf(C.show);

/** On a terminal the text goes through the pager, as git show's does. */
const PAGED = { page: true };

export const handler = (a: GlobalArgs & CliArgs<typeof C.show>) =>
  a.markdown
    ? run(
        a,
        async (app) => (await import('../../lib/ops/show.js')).showMarkdown(app, String(a.id)),
        renderMarkdown,
        PAGED,
      )
    : run(
        a,
        async (app) => {
          const { showTask } = await import('../../lib/ops/show.js');
          return showTask(app, String(a.id));
        },
        renderShow,
        PAGED,
      );
