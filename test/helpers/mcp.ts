import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { PassThrough } from 'node:stream';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { LAZY, type Sandbox } from './env.js';
import { recordingIo } from './inproc.js';
import { serveMcp } from '../../lib/mcp/server.js';

// `lazy mcp` driven by the MCP SDK's own client, as an assistant or an agent would: the built
// server spawned over stdio (the contract), or the same server in this process over a pair of
// pipes carrying the same newline-delimited JSON-RPC (behaviour).

export interface ToolResult {
  content: { type: string; text: string }[];
  structuredContent?: any;
  isError?: boolean;
}

/** The fake agent's bookkeeping (test/helpers/agent.ts agentSandbox), for turns a server starts. */
export const fakeEnv = (sb: Sandbox, scenario: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  FAKE_STATE: join(sb.home, 'fake-state'),
  FAKE_LOG: join(sb.home, 'fake-log.jsonl'),
  FAKE_SCENARIO: scenario,
  ...extra,
});

/** Spawns `lazy mcp [args]` in the sandbox and connects a client; close() ends it as a client going away does. */
export async function mcpClient(sb: Sandbox, args: string[] = [], env: NodeJS.ProcessEnv = {}) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [LAZY, 'mcp', ...args],
    cwd: sb.dir,
    env: { ...sb.env, ...env } as Record<string, string>,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d) => (stderr += d));
  return connected(transport, () => stderr);
}

/** The server in this process: serveMcp over two pipes, a client transport speaking stdio's framing. */
export async function mcpInproc(sb: Sandbox, args: string[] = [], env: NodeJS.ProcessEnv = {}) {
  const toServer = new PassThrough();
  const toClient = new PassThrough();
  let stderr = '';
  const io = recordingIo({
    env: { ...sb.env, ...env },
    cliPath: LAZY,
    json: false,
    out: (t) => void (stderr += `[stdout!] ${t}`),
    err: (t) => void (stderr += t),
  });
  const run = args[0] === '--run' ? args[1] : undefined;
  const served = serveMcp({ io, cwd: sb.dir, run, input: toServer, output: toClient, version: 'test' });
  const transport = pipeTransport(toClient, toServer);
  const c = await connected(transport, () => stderr);
  return { ...c, served, close: async () => (await c.close(), served) };
}

/** A client transport over a pair of streams, framed as stdio is (one JSON-RPC message per line). */
function pipeTransport(from: PassThrough, to: PassThrough): Transport {
  const buffer = new ReadBuffer();
  const t: Transport = {
    start: async () => {
      from.on('data', (chunk: Buffer) => {
        buffer.append(chunk);
        for (let m = buffer.readMessage(); m; m = buffer.readMessage()) t.onmessage?.(m);
      });
    },
    send: async (m: JSONRPCMessage) => void to.write(serializeMessage(m)),
    close: async () => {
      to.end();
      t.onclose?.();
    },
  };
  return t;
}

async function connected<T extends Transport>(transport: T, stderr: () => string) {
  const client = new Client({ name: 'lazy-test', version: '1.0.0' });
  await client.connect(transport);
  const call = async (name: string, args: Record<string, unknown> = {}) =>
    (await client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 })) as ToolResult;
  /** A call that must succeed: its structured result. */
  const ok = async (name: string, args: Record<string, unknown> = {}) => {
    const r = await call(name, args);
    if (r.isError) throw new Error(`${name} failed: ${r.content[0]?.text}\n${stderr()}`);
    return r.structuredContent;
  };
  return { client, transport, call, ok, stderr, close: () => client.close() };
}

export type McpClient = Awaited<ReturnType<typeof mcpClient>>;
