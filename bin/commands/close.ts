import { CONTRACTS as C, type CliArgs } from '../../lib/ops/contract/index.js';
import { commandOf } from '../contract.js';
import { run, type GlobalArgs } from '../run.js';
import { renderClosed } from '../../lib/output/tasks.js';

// close and reject share everything but their intent; reject.ts reuses this module.
export function abandonCommand(action: 'close' | 'reject') {
  return {
    ...commandOf(C[action]),
    handler: (a: GlobalArgs & CliArgs<(typeof C)[typeof action]>) =>
      run(
        a,
        async (app) => {
          const { closeTask } = await import('../../lib/ops/close.js');
          return closeTask(app, String(a.id), action, { reason: a.message, deleteBranch: a.deleteBranch });
        },
        renderClosed,
      ),
  };
}

export const { command, describe, builder, handler } = abandonCommand('close');
