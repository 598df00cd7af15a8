import { CONTRACTS as C, type CliArgs } from '../../lib/ops/contract/index.js';
import { commandOf } from '../contract.js';
import { run, decisionFlags, type GlobalArgs } from '../run.js';
import { renderAccepted } from '../../lib/output/review.js';

export const { command, describe, builder } = commandOf(C.accept);

type Args = GlobalArgs & CliArgs<typeof C.accept>;

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
