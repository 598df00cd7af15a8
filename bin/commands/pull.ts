import type { Argv } from 'yargs';
import { run, type GlobalArgs } from '../run.js';
import { renderPull } from '../../lib/output/sync.js';

export const command = 'pull [remote]';
export const describe = 'Fetch refs/lazy/* and merge it: fast-forward, or a deterministic merge of both histories';
export const builder = (y: Argv) => y.positional('remote', { type: 'string', describe: 'git remote (default: origin, or the only one)' });

export const handler = (a: GlobalArgs & { remote?: string }) => run(a, async (app) => {
  const { pullOp } = await import('../../lib/ops/sync.js');
  return pullOp(app, a.remote);
}, renderPull);
