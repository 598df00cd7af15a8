import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CONTRACTS as C, type CliArgs } from '../../lib/ops/contract/index.js';
import { commandOf } from '../contract.js';
import type { GlobalArgs } from '../run.js';
import { currentCall } from '../call.js';
import type { serveUi } from '../../lib/ui/server/index.js';

export const { command, describe, builder } = commandOf(C.ui);

/** Start-up is a feature: the server is its own bundle (dist/ui.cjs) and the page dist/ui/, loaded by this command only. */
const bundle = (name: string) => fileURLToPath(new URL(name, import.meta.url));
const server = (): typeof serveUi => createRequire(import.meta.url)(bundle('./ui.cjs')).serveUi;

export const handler = async (a: GlobalArgs & CliArgs<typeof C.ui>) => {
  const call = currentCall();
  const json = a.json === true || a.fields !== undefined;
  call.exitCode = await server()({
    io: call.io,
    cwd: resolve(call.cwd, a.C ?? '.'),
    port: a.port ?? 0,
    host: a.host,
    open: a.open ?? call.io.isTTY.stdout,
    json,
    assets: bundle('./ui'),
  });
};
