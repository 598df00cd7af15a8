import type { Argv } from 'yargs';
import { run, decisionOptions, decisionFlags, type DecisionArgs, type GlobalArgs } from '../run.js';
import { renderAccepted } from '../../lib/output/review.js';

export const command = 'accept <id>';
export const describe = 'Squash-merge the task into its target (the parent task branch, or the branch it came from)';
export const builder = (y: Argv) =>
  decisionOptions(
    y
      .positional('id', { type: 'string', describe: 'the task to accept' })
      .option('yes', { alias: 'y', type: 'boolean', describe: 'do not ask for confirmation' }),
    'before merging',
  );

interface Args extends GlobalArgs, DecisionArgs {
  id: string;
  yes?: boolean;
}

export const handler = (a: Args) =>
  run(
    a,
    async (app) => {
      const { acceptTask } = await import('../../lib/ops/accept/index.js');
      // Off a terminal nobody can answer the prompt: merging must be asked for, as gh pr merge does.
      if (!a.yes && !(app.io.isTTY.stdin && app.io.isTTY.stdout)) {
        const { usageError } = await import('../../lib/core/errors.js');
        throw usageError('accept merges only with --yes when not run on a terminal (nothing was merged)', {
          hint: `lazy accept ${a.id} --yes`,
        });
      }
      return acceptTask(app, String(a.id), {
        decisions: decisionFlags(a),
        confirm: a.yes ? undefined : app.io.confirm,
      });
    },
    renderAccepted,
  );
