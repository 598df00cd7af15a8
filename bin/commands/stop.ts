import type { Argv } from 'yargs';
import { run, type GlobalArgs } from '../run.js';
import { renderStopped } from '../../lib/output/turns.js';

export const command = 'stop <id>';
export const describe = 'Stop a running turn: SIGTERM, then SIGKILL after a grace period; no auto-resume';
export const builder = (y: Argv) =>
  y.positional('id', { type: 'string', describe: 'the task whose turn to stop' }).option('force', {
    type: 'boolean',
    describe:
      "break the claim of a turn running in another clone or machine that is gone (or held by a lease nobody can renew): interrupted here, the remote's lease deleted by compare-and-swap",
  });

export const handler = (a: GlobalArgs & { id: string; force?: boolean }) =>
  run(
    a,
    async (app) => {
      const { stopTask } = await import('../../lib/ops/stop/index.js');
      return stopTask(app, String(a.id), { force: a.force === true });
    },
    renderStopped,
  );
