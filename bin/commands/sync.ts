import { CONTRACTS as C, type CliArgs } from '../../lib/ops/contract/index.js';
import { commandOf } from '../contract.js';
import { run, type GlobalArgs } from '../run.js';
import { renderPull, renderPush, renderSync } from '../../lib/output/sync.js';

// pull, push and sync take the same argument; pull.ts and push.ts reuse this module.
const RENDER = { pull: renderPull, push: renderPush, sync: renderSync } as const;

export function syncCommand(op: keyof typeof RENDER) {
  return {
    ...commandOf(C[op]),
    handler: (a: GlobalArgs & CliArgs<(typeof C)[typeof op]>) => {
      let exit = (_: unknown) => 0;
      return run(
        a,
        async (app) => {
          const ops = await import('../../lib/ops/sync.js');
          exit = ops.exitOf[op] as (v: unknown) => number;
          return { pull: ops.pullOp, push: ops.pushOp, sync: ops.syncOp }[op](app, a.remote);
        },
        RENDER[op] as (v: unknown) => string,
        { exit: (v) => exit(v) },
      );
    },
  };
}

export const { command, describe, builder, handler } = syncCommand('sync');
