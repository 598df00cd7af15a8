import { CONTRACTS as C, type CliArgs } from '../../lib/ops/contract/index.js';
import { commandOf } from '../contract.js';
import { run, styleOf, type GlobalArgs } from '../run.js';
import { renderDiff } from '../../lib/output/review.js';

export const { command, describe, builder } = commandOf(C.diff);

export const handler = (a: GlobalArgs & CliArgs<typeof C.diff>) =>
  run(
    a,
    async (app) => {
      const { taskDiff } = await import('../../lib/ops/diff.js');
      return taskDiff(app, String(a.id), !!a.stat, !a.json && styleOf(app.io, a).color);
    },
    renderDiff,
    { page: true }, // on a terminal, through the pager, as git diff
  );
