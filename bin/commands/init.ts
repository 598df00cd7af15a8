import type { Argv } from 'yargs';
import { run, type GlobalArgs } from '../run.js';

export const command = 'init';
export const describe = 'Prepare the repository for lazy (safe to rerun)';
export const builder = (y: Argv) =>
  y.option('remote', {
    type: 'string',
    describe: 'also add refspecs so plain git fetch/push carry refs/lazy/* and the task branches',
  });
export const handler = (a: GlobalArgs & { remote?: string }) =>
  run(
    a,
    async (app) => {
      const { initRepo } = await import('../../lib/ops/init.js');
      const report = await initRepo(app);
      if (a.remote !== undefined) {
        const { initRemote } = await import('../../lib/ops/sync.js');
        report.actions.push(...(await initRemote(app, a.remote || undefined)));
      }
      return report;
    },
    (r) => [`lazy is ready in ${r.repository}`, ...r.actions.map((x) => `  ${x}`)].join('\n'),
  );
