import type { Argv } from 'yargs';
import { run, type GlobalArgs } from '../run.js';
import { renderSubmitted } from '../../lib/output/review.js';
import type { Submitted } from '../../lib/ops/submit.js';

export const command = 'submit <id> [remote]';
export const describe =
  'Hand the reviewed work to a forge: push lazy/<id> to the remote, mark the task submitted, run forge.pr_command';
export const builder = (y: Argv) =>
  y
    .positional('id', { type: 'string', describe: 'the task to submit' })
    .positional('remote', { type: 'string', describe: 'the git remote (default: origin, or the only one)' });

export const handler = (a: GlobalArgs & { id: string; remote?: string }) => {
  let exit = (_: Submitted) => 0;
  return run(
    a,
    async (app) => {
      const ops = await import('../../lib/ops/submit.js');
      exit = ops.submitExit;
      return ops.submitTask(app, String(a.id), a.remote);
    },
    renderSubmitted,
    (v) => exit(v),
  );
};
