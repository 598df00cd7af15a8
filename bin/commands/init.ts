import type { Argv } from 'yargs';
import { run, type GlobalArgs } from '../run.js';

export const command = 'init';
export const describe = 'Prepare the repository for lazy (safe to rerun)';
export const builder = (y: Argv) => y;
export const handler = (a: GlobalArgs) => run(a, async (app) => {
  const { initRepo } = await import('../../lib/ops/init.js');
  return initRepo(app);
}, (r) => [`lazy is ready in ${r.repository}`, ...r.actions.map((x) => `  ${x}`)].join('\n'));
