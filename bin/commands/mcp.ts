import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CONTRACTS as C, type CliArgs } from '../../lib/ops/contract/index.js';
import { commandOf } from '../contract.js';
import type { GlobalArgs } from '../run.js';
import { currentCall } from '../call.js';
import type { serveMcp } from '../../lib/mcp/server.js';

declare const LAZY_VERSION: string;

export const { command, describe, builder } = commandOf(C.mcp);

/** Start-up is a feature: the server and the MCP SDK are their own bundle (dist/mcp.cjs), loaded by this command only. */
const server = (): typeof serveMcp =>
  createRequire(import.meta.url)(fileURLToPath(new URL('./mcp.cjs', import.meta.url))).serveMcp;

export const handler = async (a: GlobalArgs & CliArgs<typeof C.mcp>) => {
  const call = currentCall();
  call.exitCode = await server()({
    io: call.io,
    cwd: resolve(call.cwd, a.C ?? '.'),
    run: a.run,
    input: process.stdin,
    output: process.stdout,
    version: typeof LAZY_VERSION === 'string' ? LAZY_VERSION : 'dev',
  });
};
