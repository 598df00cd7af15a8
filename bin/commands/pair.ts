import type { Argv } from 'yargs';
import { run, type GlobalArgs } from '../run.js';
import { renderPaired } from '../../lib/output/turns.js';

export const command = 'pair <id>';
export const describe = "Work interactively in the task's worktree (its agent's interactive command, or $SHELL)";
export const builder = (y: Argv) => y.positional('id', { type: 'string', describe: 'the task to work on' });

export const handler = (a: GlobalArgs & { id: string }) =>
  run(
    a,
    async (app) => {
      const { pairTask } = await import('../../lib/ops/pair.js');
      return pairTask(app, String(a.id));
    },
    renderPaired,
  );
