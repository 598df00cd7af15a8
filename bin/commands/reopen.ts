import { CONTRACTS as C, type CliArgs } from '../../lib/ops/contract/index.js';
import { commandOf } from '../contract.js';
import { run, type GlobalArgs } from '../run.js';
import { renderTransition } from '../../lib/output/tasks.js';

export const { command, describe, builder } = commandOf(C.reopen);

export const handler = (a: GlobalArgs & CliArgs<typeof C.reopen>) =>
  run(
    a,
    async (app) => {
      const { reopenTask } = await import('../../lib/ops/reopen.js');
      return reopenTask(app, String(a.id), a.reason);
    },
    (v) => renderTransition(v.task),
  );
