import type { CommandContract } from './types.js';

// The contracts of the commands about lazy itself (help, completion, the MCP server, the demo) and of the
// hidden ones it runs for its own use (described false: in no help, completion or man page).

export const completion = {
  name: 'completion',
  describe: 'Print a shell completion script (bash: eval "$(lazy completion bash)")',
  args: [
    {
      name: 'shell',
      positional: true,
      required: true,
      choices: ['bash', 'zsh', 'fish'],
      describe: 'the shell to complete in: commands, options, statuses and task ids',
    },
  ],
} as const satisfies CommandContract;

export const help = {
  name: 'help',
  describe: 'Show help for a command (also: lazy <command> --help)',
  args: [
    {
      name: 'command',
      positional: true,
      type: 'string',
      describe: 'the command to explain (default: all of them)',
    },
  ],
} as const satisfies CommandContract;

export const mcp = {
  name: 'mcp',
  describe: "Serve lazy's operations as MCP tools over stdio (an agent's own server with --run)",
  args: [{ name: 'run', type: 'string', describe: 'agent mode: bind to the run lazy launched the agent for' }],
} as const satisfies CommandContract;

export const demo = {
  name: 'demo',
  describe: 'Run the lifecycle in a throwaway repository and narrate it (offline)',
  args: [{ name: 'keep', type: 'boolean', describe: 'keep the temporary repository' }],
} as const satisfies CommandContract;

/** The detached per-turn supervisor that lazy start/unblock/resume launch. */
export const supervise = {
  name: '__supervise',
  describe: false,
  args: [{ name: 'run', positional: true, required: true, type: 'string', describe: 'the run to supervise' }],
} as const satisfies CommandContract;

/** The scripted agent `lazy demo` configures; a command agent like any other. */
export const demoAgent = {
  name: '__demo-agent',
  describe: false,
  args: [{ name: 'prompt', positional: true, required: true, type: 'string', describe: "the demo agent's prompt" }],
} as const satisfies CommandContract;

/** Seeds N tasks through the store's own documents (npm run bench uses it). */
export const benchSeed = {
  name: '__bench-seed',
  describe: false,
  args: [
    { name: 'count', positional: true, required: true, type: 'number', describe: 'how many tasks to seed' },
    { name: 'complete', type: 'number', describe: 'how many of them are finished (complete and abandoned, by turns)' },
    { name: 'days-ago', type: 'number', describe: 'the finished tasks last changed this many days ago' },
  ],
} as const satisfies CommandContract;

export const ui = {
  name: 'ui',
  describe: 'Serve the board and reviews as a local web page until interrupted (prints its address first)',
  args: [
    {
      name: 'port',
      type: 'number',
      default: 0,
      describe: 'the port to listen on (default: a free one)',
    },
    {
      name: 'host',
      type: 'string',
      describe: 'the address to listen on (default 127.0.0.1; another is warned about: the page can merge code)',
    },
    {
      name: 'open',
      type: 'boolean',
      describe: 'open the page in a browser ($BROWSER, xdg-open, open); default: on a terminal',
    },
  ],
} as const satisfies CommandContract;
