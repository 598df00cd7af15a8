import type { Readable, Writable } from 'node:stream';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Actor } from '../core/actor.js';
import { nearest } from '../core/nearest.js';
import { unexpected, usageError } from '../core/errors.js';
import type { Io } from '../core/io.js';
import { readRun, type RunRecord } from '../agents/runs.js';
import { openApp, closeApp } from '../ops/app.js';
import { callTool } from './call.js';
import { reportError } from '../output/emit.js';
import { agentTools } from './agent.js';
import { builderTools } from './builder.js';
import { LineLimit, MCP_MAX_MESSAGE_BYTES, oversizeReply } from './lines.js';
import { errorResult, okResult, type ToolResult } from './port.js';
import type { Tool } from './schema.js';

// `lazy mcp`: lazy's lifecycle operations as MCP tools over stdio. Each call runs like one CLI
// command: its own app (a reconcile pass first), its own port, the actor of the mode it serves.

export interface ServeOptions {
  /** The command's port: stderr, the clock and the environment come from it; stdout never does. */
  io: Io;
  /** The repository directory (-C). */
  cwd: string;
  /** Agent mode: the run lazy launched the agent for. */
  run?: string;
  input: Readable;
  output: Writable;
  version: string;
}

interface Mode {
  actor: Actor;
  tools: Tool[];
  /** What the client's model is told about this server when it connects. */
  instructions: string;
}

const BUILDER: Mode = {
  actor: 'builder',
  tools: builderTools,
  instructions:
    "lazy's lifecycle operations on this repository's tasks, recorded with actor builder. " +
    'Results are what `lazy <command> --json` prints; errors are its JSON errors.',
};

/** The run the server is bound to, read from the run record lazy wrote when it launched the agent. */
async function agentMode(o: ServeOptions, run: string): Promise<Mode> {
  const app = await openApp({ io: o.io, cwd: o.cwd, json: true, reconcile: false });
  let rec: RunRecord | null | undefined;
  try {
    rec = /^[A-Za-z0-9_-]+$/.test(run) ? readRun(app.repo.lazyDir, run) : null;
  } finally {
    closeApp(app);
  }
  if (!rec) throw usageError(`lazy mcp --run ${run}: this repository has no run ${run}`, { run });
  return {
    actor: 'agent',
    tools: agentTools(rec),
    instructions:
      `You are working on lazy task ${rec.task} (run ${rec.id}). Report what you are doing with ` +
      'lazy_update_progress; end with lazy_finish, or lazy_request_decision when a person must decide.',
  };
}

/** The actions a mode serves: those it has a tool for (lazy_<action>). */
const servedBy = (mode: Mode) => new Set(mode.tools.map((t) => t.name.replace(/^lazy_/, '')));

/** As the CLI says of an unknown command: the name, and the nearest this surface serves. */
function unknownTool(name: string, mode: Mode) {
  const near = nearest(
    name,
    mode.tools.map((t) => t.name),
  );
  return usageError(`unknown tool '${name}'${near ? `; the nearest is '${near}'` : ''} (tools/list names them)`, {
    tool: name,
    ...(near ? { nearest: near } : {}),
  });
}

/** One tool call, as one command (lib/mcp/call.ts): the reply, or the CLI's JSON error. */
async function call(
  o: ServeOptions,
  mode: Mode,
  name: string,
  args: unknown,
  signal: AbortSignal,
): Promise<ToolResult> {
  const tool = mode.tools.find((t) => t.name === name);
  if (!tool) return errorResult(unknownTool(name, mode));
  try {
    return okResult(
      await callTool({ io: o.io, cwd: o.cwd, surface: 'lazy mcp' }, tool, args, { actor: mode.actor, signal }),
      servedBy(mode),
    );
  } catch (e) {
    return errorResult(e);
  }
}

/**
 * Serves until the client goes away (stdin ends); calls in flight are aborted then. Returns the exit
 * code; a failure to start, or a connection that broke (stdin or stdout failing), is reported here,
 * in this bundle, on stderr, and is not 0.
 */
export async function serveMcp(o: ServeOptions): Promise<number> {
  try {
    await serve(o);
    return 0;
  } catch (e) {
    // Never on stdout, even under --json: stdout is the MCP channel.
    return reportError({ out: o.io.err, err: o.io.err }, false, e);
  }
}

async function serve(o: ServeOptions): Promise<void> {
  const mode = o.run ? await agentMode(o, o.run) : BUILDER;
  const server = new Server(
    { name: 'lazy', version: o.version },
    { capabilities: { tools: {} }, instructions: mode.instructions },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: mode.tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema })),
  }));
  server.setRequestHandler(CallToolRequestSchema, (req, extra) =>
    call(o, mode, req.params.name, req.params.arguments, extra.signal),
  );
  // What the SDK reports (a line that is not JSON-RPC, say) is said on stderr; the server goes on.
  let lastError: string | null = null;
  server.onerror = (e) => {
    lastError = e.message;
    o.io.err(`lazy mcp: ${e.message}\n`);
  };
  const lines = new LineLimit(MCP_MAX_MESSAGE_BYTES, (x) => {
    const which = x.id !== undefined ? ` (request ${JSON.stringify(x.id)})` : '';
    o.io.err(`lazy mcp: refused a ${x.bytes}-byte message${which}: over the ${x.limit}-byte limit\n`);
    if (o.output.writable) o.output.write(oversizeReply(x));
  });
  const transport = new StdioServerTransport(lines, o.output);
  const closed = new Promise<void>((res) => (server.onclose = res));
  await server.connect(transport);
  // The client going away ends the server; anything else that stops the transport is a failure.
  let ending = false;
  let broken: string | null = null;
  const end = () => {
    ending = true;
    void transport.close();
  };
  const fail = (why: string) => {
    broken ??= why;
    end();
  };
  o.input.on('error', (e) => fail(`cannot read from the client: ${e.message}`));
  o.output.on('error', (e) => fail(`cannot write to the client: ${e.message}`));
  lines.once('end', end);
  o.input.once('close', () => {
    if (!o.input.readableEnded) end(); // destroyed without an end: the line reader never ends
  });
  o.input.pipe(lines);
  await closed;
  if (broken || !ending)
    throw unexpected(`lazy mcp: the connection to the client broke: ${broken ?? lastError ?? 'the transport closed'}`);
}
