import { CONTRACTS as C, type CliArgs } from '../../lib/ops/contract/index.js';
import { commandOf } from '../contract.js';
import { run, type GlobalArgs } from '../run.js';

export const { command, describe, builder } = commandOf(C.init);
export const handler = (a: GlobalArgs & CliArgs<typeof C.init>) =>
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
