import type { Argv } from 'yargs';
import { run, type GlobalArgs } from '../run.js';
import { renderPush } from '../../lib/output/sync.js';

export const command = 'push [remote]';
export const describe = 'Push refs/lazy/* (fast-forward only; never forced)';
export const builder = (y: Argv) => y.positional('remote', { type: 'string', describe: 'git remote (default: origin, or the only one)' });

export const handler = (a: GlobalArgs & { remote?: string }) => run(a, async (app) => {
  const { pushOp } = await import('../../lib/ops/sync.js');
  return pushOp(app, a.remote);
}, renderPush);
