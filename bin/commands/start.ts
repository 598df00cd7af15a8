import type { Argv } from 'yargs';
import { run, maybeFollow, orFollowed, type GlobalArgs, type FollowArgs } from '../run.js';
import { renderStarted } from '../../lib/output/turns.js';

export const command = 'start <id>';
export const describe = "Launch the task's first turn (returns once it is running)";
export const builder = (y: Argv) =>
  y
    .positional('id', { type: 'string', describe: 'the task to start' })
    .option('agent', { type: 'string', describe: 'agent to use for this task' })
    .option('follow', { alias: 'f', type: 'boolean', describe: "stream the turn's output until it ends" });

export const handler = (a: GlobalArgs & FollowArgs & { id: string; agent?: string }) =>
  run(
    a,
    async (app) => {
      const { startTask } = await import('../../lib/ops/start.js');
      return maybeFollow(app, a, await startTask(app, String(a.id), { agent: a.agent }));
    },
    orFollowed(renderStarted),
  );
