import type { Argv } from 'yargs';
import { run, type GlobalArgs } from '../run.js';
import { renderSync } from '../../lib/output/sync.js';

export const command = 'sync [remote]';
export const describe = 'Pull, then push; retried while someone else pushes meanwhile';
export const builder = (y: Argv) => y.positional('remote', { type: 'string', describe: 'git remote (default: origin, or the only one)' });

export const handler = (a: GlobalArgs & { remote?: string }) => run(a, async (app) => {
  const { syncOp } = await import('../../lib/ops/sync.js');
  return syncOp(app, a.remote);
}, renderSync);
