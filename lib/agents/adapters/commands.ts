import type { StreamEvent, StreamState } from './adapter.js';

// The commands an agent ran, as its own stream reports them (claude's Bash tool calls with
// their results, codex's command_execution items), merged with the list its envelope claims.

export interface CommandRun {
  command: string;
  exit_code: number;
}

/** The envelope schema's limits: the review keeps at most this many commands, each this long. */
const MAX_COMMANDS = 1000;
const MAX_COMMAND_CHARS = 8192;

/** `bash -lc '<cmd>'` (codex wraps every command so) is `<cmd>`; anything else is itself. */
export function unwrapShell(command: string): string {
  const m = /^(?:\/(?:usr\/)?bin\/)?(?:ba|z)?sh -l?c '((?:[^']|'\\'')*)'$/s.exec(command.trim());
  return m ? m[1]!.replace(/'\\''/g, "'") : command;
}

/** Invariant: one command run is its unwrapped text, whitespace collapsed, and its exit code. */
const keyOf = (c: CommandRun) => `${c.exit_code}\u0000${unwrapShell(c.command).replace(/\s+/g, ' ').trim()}`;

/** The stream's commands (in the order they ran), then the envelope's the stream did not show; no duplicates. */
export function mergeCommands(stream: CommandRun[] = [], envelope: CommandRun[] = []): CommandRun[] | undefined {
  const seen = new Set<string>();
  const out: CommandRun[] = [];
  for (const c of [...stream, ...envelope]) {
    const key = keyOf(c);
    if (seen.has(key) || out.length >= MAX_COMMANDS) continue;
    seen.add(key);
    out.push(c);
  }
  return out.length ? out : undefined;
}

/**
 * Folds a line's events into the commands run: a shell tool call waits for its result
 * (claude: tool_use, then tool_result), a result that names its command stands alone
 * (codex). A result without an exit code (a denied or timed-out call) ran nothing countable.
 */
export function collectCommands(state: StreamState, events: StreamEvent[]): void {
  for (const e of events) {
    if (e.kind === 'tool' && e.shell && e.id) (state.pendingCommands ??= {})[e.id] = e.detail;
    if (e.kind !== 'result' || e.exit_code === undefined) continue;
    const command = e.command ?? (e.id ? state.pendingCommands?.[e.id] : undefined);
    if (e.id) delete state.pendingCommands?.[e.id];
    if (!command?.trim()) continue;
    (state.commands ??= []).push({ command: command.slice(0, MAX_COMMAND_CHARS), exit_code: e.exit_code });
    if (state.commands.length > MAX_COMMANDS) state.commands.shift();
  }
}
