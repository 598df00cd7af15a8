import type { Argv } from 'yargs';
import { run, type GlobalArgs } from '../run.js';
import { renderWork, renderWorkEvent, workExit } from '../../lib/output/work.js';

export const command = 'work [remote]';
export const describe = 'Fleet worker: claim queued tasks on the remote, run them, push their outcomes; until stopped';
export const builder = (y: Argv) =>
  y
    .positional('remote', { type: 'string', describe: 'git remote (default: origin, or the only one)' })
    .option('agent', { type: 'string', describe: 'the agent to run the turns with' })
    .option('max', { type: 'number', default: 1, describe: 'turns to run at once on this machine' })
    .option('drain', { type: 'boolean', describe: 'exit 0 once nothing is left to pick and nothing runs' })
    .option('now', { type: 'boolean', describe: 'on Ctrl-C or SIGTERM, stop the running turns as lazy stop does' });

interface WorkArgs extends GlobalArgs {
  remote?: string;
  agent?: string;
  max?: number;
  drain?: boolean;
  now?: boolean;
}

export const handler = (a: WorkArgs) =>
  run(
    a,
    async (app) => {
      const { work } = await import('../../lib/ops/work.js');
      const o = { remote: a.remote, agent: a.agent, max: a.max, drain: a.drain, now: a.now };
      return work(app, o, (kind, e) => (a.json ? app.io.err : app.io.out)(renderWorkEvent(kind, e)));
    },
    renderWork,
    { exit: workExit },
  );
