import type { Argv } from 'yargs';
import { run, maybeFollow, orFollowed, type GlobalArgs, type FollowArgs } from '../run.js';
import { renderStarted } from '../../lib/output/turns.js';

export const command = 'resume <id>';
export const describe = "Start an interrupted task's next turn (no feedback needed; resets the crash counter)";
export const builder = (y: Argv) =>
  y
    .positional('id', { type: 'string', describe: 'the task to resume' })
    .option('follow', { alias: 'f', type: 'boolean', describe: "stream the turn's output until it ends" });

export const handler = (a: GlobalArgs & FollowArgs & { id: string }) =>
  run(
    a,
    async (app) => {
      const { resumeTask } = await import('../../lib/ops/turn.js');
      return maybeFollow(app, a, await resumeTask(app, String(a.id)));
    },
    orFollowed(renderStarted),
  );
