import { CONTRACTS as C, type CliArgs } from '../../lib/ops/contract/index.js';
import { commandOf } from '../contract.js';
import { run, maybeFollow, orFollowed, type GlobalArgs } from '../run.js';
import { renderStarted } from '../../lib/output/turns.js';

export const { command, describe, builder } = commandOf(C.resume);

export const handler = (a: GlobalArgs & CliArgs<typeof C.resume>) =>
  run(
    a,
    async (app) => {
      const { resumeTask } = await import('../../lib/ops/resume.js');
      return maybeFollow(app, a, await resumeTask(app, String(a.id)));
    },
    orFollowed(renderStarted),
  );
