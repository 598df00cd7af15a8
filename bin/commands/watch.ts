import { CONTRACTS as C, type CliArgs } from '../../lib/ops/contract/index.js';
import { commandOf } from '../contract.js';
import { run, styleOf, type GlobalArgs } from '../run.js';
import { renderedText } from '../../lib/output/emit.js';
import { renderWatch } from '../../lib/output/watch.js';

export const { command, describe, builder } = commandOf(C.watch);

export const handler = (a: GlobalArgs & CliArgs<typeof C.watch>) =>
  run(
    a,
    async (app) => {
      const { watchSnapshot, watchLoop } = await import('../../lib/ops/watch.js');
      if (a.once || a.json || !app.io.isTTY.stdout) return watchSnapshot(app);
      // Each frame is escaped and coloured as a printed result is.
      return watchLoop(app, (rows) => renderedText(rows, renderWatch, styleOf(app.io, a)).trimEnd());
    },
    renderWatch,
  );
