import type { Argv } from 'yargs';
import { run, type GlobalArgs } from '../run.js';
import { renderPull, renderPush, renderSync } from '../../lib/output/sync.js';

// pull, push and sync take the same argument; pull.ts and push.ts reuse this module.
const OPS = {
  pull: {
    describe: 'Fetch refs/lazy/* and merge it: fast-forward, or a deterministic merge of both histories',
    render: renderPull,
  },
  push: { describe: 'Push refs/lazy/* (fast-forward only; never forced)', render: renderPush },
  sync: { describe: 'Pull, then push; retried while someone else pushes meanwhile', render: renderSync },
} as const;

export function syncCommand(op: keyof typeof OPS) {
  return {
    command: `${op} [remote]`,
    describe: OPS[op].describe,
    builder: (y: Argv) =>
      y.positional('remote', { type: 'string', describe: 'git remote (default: origin, or the only one)' }),
    handler: (a: GlobalArgs & { remote?: string }) => {
      let exit = (_: unknown) => 0;
      return run(
        a,
        async (app) => {
          const ops = await import('../../lib/ops/sync.js');
          exit = ops.exitOf[op] as (v: unknown) => number;
          return { pull: ops.pullOp, push: ops.pushOp, sync: ops.syncOp }[op](app, a.remote);
        },
        OPS[op].render as (v: unknown) => string,
        { exit: (v) => exit(v) },
      );
    },
  };
}

export const { command, describe, builder, handler } = syncCommand('sync');
