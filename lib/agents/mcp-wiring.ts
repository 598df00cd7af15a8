import { join } from 'node:path';
import { writeFileAtomicSync } from '../core/fsutil.js';
import { nodeBinary } from '../core/proc.js';
import { env } from '../core/env.js';
import { runDir } from './runs.js';
import type { McpServer } from './adapters/adapter.js';

// How an agent reaches lazy's MCP server: `lazy -C <repo> mcp --run <run>`, started by the
// agent itself from its own MCP configuration. Invariant: the binding (repository and run)
// is fixed here, by how lazy launched the agent, and never comes from a tool argument.

/** The server command for a run (node, the lazy entry point, `-C <repo> mcp --run <run>`); writes `<run dir>/mcp.json`. */
export function wireMcp(o: { lazyDir: string; repoTop: string; cliPath: string; run: string }): McpServer {
  const argv = [nodeBinary(), o.cliPath, '-C', o.repoTop, 'mcp', '--run', o.run];
  const config = join(runDir(o.lazyDir, o.run), 'mcp.json');
  const vars = serverEnv();
  const doc = { mcpServers: { lazy: { command: argv[0]!, args: argv.slice(1), env: vars } } };
  writeFileAtomicSync(config, JSON.stringify(doc, null, 2));
  return { argv, config, env: vars };
}

/**
 * What the server must see of lazy's own environment (git's identity and config, lazy's settings):
 * MCP clients start servers with a short list of safe variables (codex, the SDK's stdio client), so
 * the configuration names these explicitly.
 */
function serverEnv(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env()))
    if (v !== undefined && /^(GIT|LAZY)_[A-Z0-9_]+$/.test(k) && !/^LAZY_(MCP_|RESULT$|RUN$|TASK_ID$|TURN$)/.test(k))
      out[k] = v;
  return out;
}

/** The environment a command agent gets: the command line (splitCommand parses it back) and the config file. */
export const mcpEnv = (w: McpServer): Record<string, string> => ({
  LAZY_MCP_COMMAND: w.argv.map(shellWord).join(' '),
  LAZY_MCP_CONFIG: w.config,
});

/** What a command agent finds in its environment instead of argv: lazy's MCP server (when wired) and the model. */
export const commandEnv = (w: McpServer | undefined, model: string | undefined): Record<string, string> => ({
  ...(w ? mcpEnv(w) : {}),
  ...(model ? { LAZY_MODEL: model } : {}),
});

/** A POSIX shell word: plain tokens as they are, anything else single-quoted. */
export const shellWord = (s: string) => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);
