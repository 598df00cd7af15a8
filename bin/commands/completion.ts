import { CONTRACTS as C, type CliArgs } from '../../lib/ops/contract/index.js';
import { commandOf } from '../contract.js';
import { runBare, type GlobalArgs } from '../run.js';

export const { command, describe, builder } = commandOf(C.completion);

export const handler = (a: GlobalArgs & CliArgs<typeof C.completion>) =>
  runBare(
    a,
    async () => {
      const { completionScript } = await import('../shells.js');
      return { shell: a.shell, script: completionScript(a.shell) };
    },
    (r) => r.script,
  );
