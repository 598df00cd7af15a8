import { CONTRACTS as C, type CliArgs } from '../../lib/ops/contract/index.js';
import { commandOf } from '../contract.js';
import { resolve } from 'node:path';
import { setExitCode } from '../run.js';
import { currentCall } from '../call.js';

// Hidden: the detached per-turn supervisor that lazy start/unblock/resume launch.
export const { command, describe, builder } = commandOf(C.supervise);

export const handler = async (a: CliArgs<typeof C.supervise>) => {
  const { openApp, closeApp } = await import('../../lib/ops/app.js');
  const { supervise } = await import('../../lib/agents/supervisor/supervisor.js');
  const { claimKeeper } = await import('../../lib/fleet/keeper.js');
  const call = currentCall();
  const app = await openApp({ io: call.io, cwd: resolve(call.cwd), json: false, reconcile: false });
  try {
    const config = await app.config();
    setExitCode(
      await supervise(
        {
          lazyDir: app.repo.lazyDir,
          store: app.store,
          config,
          repo: app.repo,
          launcher: app.launcher,
          warn: app.io.warn,
          keepClaim: claimKeeper(app, config),
        },
        String(a.run),
      ),
    );
  } finally {
    closeApp(app);
  }
};
