import type { Argv } from 'yargs';
import { run, styleOf, type GlobalArgs } from '../run.js';
import { renderedText } from '../../lib/output/emit.js';
import { renderWatch } from '../../lib/output/watch.js';

export const command = 'watch';
export const describe = 'A live view of active tasks and their running turns (one snapshot when not on a terminal)';
export const builder = (y: Argv) => y.option('once', { type: 'boolean', describe: 'print one snapshot and exit' });

export const handler = (a: GlobalArgs & { once?: boolean }) =>
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
