import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { LAZY, type Sandbox } from './env.js';

// The built `lazy mcp` driven by the MCP SDK's own client over stdio, as an assistant or an agent would.

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
  const client = new Client({ name: 'lazy-test', version: '1.0.0' });
  await client.connect(transport);
  const call = async (name: string, args: Record<string, unknown> = {}) =>
    (await client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 })) as ToolResult;
  /** A call that must succeed: its structured result. */
  const ok = async (name: string, args: Record<string, unknown> = {}) => {
    const r = await call(name, args);
    if (r.isError) throw new Error(`${name} failed: ${r.content[0]?.text}\n${stderr}`);
    return r.structuredContent;
  };
  return { client, transport, call, ok, stderr: () => stderr, close: () => client.close() };
}

export type McpClient = Awaited<ReturnType<typeof mcpClient>>;
