import type { Usage } from '../../model/usage.js';
import type { Classified } from './taxonomy.js';

// One interface for every agent: how to launch and resume it, how to read what it
// prints, and how to classify its failures into the shared vocabulary.

export type AdapterName = 'claude' | 'codex' | 'command' | 'gemini' | 'opencode' | 'pi';

export interface AgentSpec {
  /** The configured name (claude, codex, or any name under agents.<name>). */
  name: string;
  adapter: AdapterName;
  /** Executable and fixed arguments, already split. */
  command: string[];
  permissionMode?: string;
  /** The interactive command for `lazy pair`, already split. */
  interactive?: string[];
}

export interface TurnInput {
  prompt: string;
  /** The agent's own session id to resume, when one is known. */
  sessionId: string | null;
  /** ask turns are read-only where the agent supports it. */
  mode: 'work' | 'ask';
  /** The model for this turn, already resolved from --model or agents.<name>.model; absent: the agent's default. */
  model?: string;
  /** lazy's MCP server for this run, wired into the agent's own MCP configuration (absent: config mcp false). */
  mcp?: McpServer;
}

/** How the agent starts lazy's MCP server for its run (lib/agents/mcp-wiring.ts builds it). */
export interface McpServer {
  /** The server's command line. */
  argv: string[];
  /** The `mcpServers` JSON file naming it. */
  config: string;
  /** Variables the server needs from lazy's environment (git identity and config, LAZY_* settings). */
  env: Record<string, string>;
}

/** What an adapter learned from the output stream so far. */
export interface StreamState {
  sessionId?: string;
  result?: string;
  isError?: boolean;
  errorText?: string;
  apiStatus?: number;
  /** This turn's usage (claude reports it per run). */
  usage?: Usage;
  /** The thread's usage so far (codex reports it cumulatively): the turn's share is the difference. */
  usageCumulative?: Usage;
  costUsd?: number;
  /** The last in-stream retry the CLI reported (it is retrying on its own). */
  retry?: { message: string; count: number; status?: number; type?: string };
  /** The error type the CLI put on its own error message (claude: authentication_failed, rate_limit, …). */
  errorType?: string;
  /** The latest usage-window report (claude rate_limit_event): rejected means the window is spent. */
  rateLimit?: { status: string; resetsAt?: string; type?: string };
  /** Distinct error messages of the CLI's error events, the last few (codex). */
  errors?: string[];
  /** The commands the agent ran, from its own stream, in order. */
  commands?: { command: string; exit_code: number }[];
  /** Shell tool calls still waiting for their result, by tool call id (claude). */
  pendingCommands?: Record<string, string>;
}

/**
 * One thing the agent did, read from one line of its stream: what a person following the
 * turn is shown (lib/output/stream.ts), and where the commands it ran are read from.
 */
export type StreamEvent =
  | { kind: 'text'; text: string }
  /** A tool call, with its command or file as detail; `shell` when the detail is a command line. */
  | { kind: 'tool'; id?: string; name: string; detail: string; shell?: boolean }
  /** A tool's result; `command` when the result names the command it ran (codex). */
  | { kind: 'result'; id?: string; ok: boolean; exit_code?: number; command?: string; text: string }
  | { kind: 'retry'; what: string; attempt?: number; max?: number; delayMs?: number }
  | { kind: 'error'; text: string }
  | { kind: 'note'; text: string }
  | { kind: 'end'; ok: boolean; text: string }
  /** Not the agent's dialect (plain output, lazy's own notes): shown unchanged. */
  | { kind: 'raw'; line: string };

/** A successful result that printed nothing shows nothing. */
export const isQuiet = (e: StreamEvent) => e.kind === 'result' && e.ok && !e.text;

/** The last event of these log lines that shows something, in the adapter's dialect (lazy's notes are raw). */
export function lastEvent(adapter: Adapter, lines: string[]): StreamEvent | null {
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!;
    const shown = (line.startsWith('[lazy') ? [{ kind: 'raw', line } as const] : adapter.events(line)).filter(
      (e) => !isQuiet(e),
    );
    if (shown.length) return shown.at(-1)!;
  }
  return null;
}

export type LineKind = 'progress' | 'retry';

export interface Adapter {
  argv(spec: AgentSpec, input: TurnInput): string[];
  /** Defaults the agent process needs for this turn; the user's own environment overrides them. */
  env?(input: TurnInput, spec: AgentSpec): Record<string, string>;
  /** Folds one output line into the state; retry lines are not progress for the watchdog. */
  parseLine(line: string, state: StreamState): LineKind;
  /** What one output line says the agent did, in the shared vocabulary (one parser per dialect). */
  events(line: string): StreamEvent[];
  classify(x: FailureInput): Classified;
  /** The resume target no longer exists (another HOME or machine): start a fresh session. */
  sessionMissing(x: FailureInput): boolean;
  /** The result text of a successful turn, before any envelope. */
  resultText(state: StreamState, tail: string): string | undefined;
}

export interface FailureInput {
  exitCode: number | null;
  signal: string | null;
  state: StreamState;
  tail: string;
}

/** Parses a JSON line, or undefined for anything else (CLIs mix in plain text). */
export function jsonLine(line: string): Record<string, any> | undefined {
  const s = line.trim();
  if (!s.startsWith('{')) return undefined;
  try {
    return JSON.parse(s) as Record<string, any>;
  } catch {
    return undefined;
  }
}

/** The fallback reason of a failure with no structured signal. */
export const exitReason = (x: FailureInput) => (x.signal ? `killed by ${x.signal}` : `exit ${x.exitCode}`);

/** Ambiguous: retried as unknown, with what the agent last said as the reason. */
export function unknownFailure(x: FailureInput, said?: string): Classified {
  const line = (said ?? x.tail)
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .at(-1);
  const reason = line ? `${exitReason(x)}: ${line}` : exitReason(x);
  return { cls: 'unknown', reason: reason.length > 300 ? reason.slice(0, 299) + '…' : reason };
}

export const MAX_SUMMARY_BYTES = 4096;

/** The last 4,096 bytes of output, cut at a line boundary and marked when cut. */
export function tailSummary(output: string): string {
  const buf = Buffer.from(output.trimEnd(), 'utf8');
  if (buf.length <= MAX_SUMMARY_BYTES) return buf.toString('utf8');
  let start = buf.length - MAX_SUMMARY_BYTES;
  const nl = buf.indexOf(10, start);
  if (nl >= 0 && nl < buf.length - 1) start = nl + 1;
  return `[… ${start} earlier bytes of output omitted]\n${buf.subarray(start).toString('utf8')}`;
}
