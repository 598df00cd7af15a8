import type { Adapter, McpServer, StreamEvent } from './adapter.js';
import { usageOf, type Usage } from '../../model/usage.js';
import { exitReason, jsonLine, unknownFailure, type StreamState } from './adapter.js';
import { collectCommands, unwrapShell } from './commands.js';
import { classOfErrorMessage, classOfStatus, oneLine, type Classified, type FailureClass } from './taxonomy.js';
import { now } from '../../core/clock.js';
import { lastLine } from './text.js';

// OpenAI Codex: `codex exec --json <prompt>` with stdin closed (it waits on an open
// stdin), resumed as `codex exec resume --json <thread_id> <prompt>`. exec resume has no
// -s option, so the sandbox is set with -c for both forms (codex-cli 0.171.0 fixtures).
// Failures are classified from codex's own error events (`error`, `turn.failed`): the HTTP
// status they name, the fixed messages codex maps API error codes to, and socket errors;
// never from the agent's messages or the output tail.

/** Fixed messages codex prints for API error codes (insufficient_quota, server_is_overloaded). */
const FIXED: [RegExp, FailureClass][] = [
  [/^Quota exceeded\. Check your plan and billing details/, 'fatal_auth'],
  [/^Selected model is at capacity/, 'transient_overload'],
];
/** codex's set-up errors, printed on stderr before any event. */
const SETUP =
  /^(Not inside a trusted directory and --skip-git-repo-check was not specified|Error finding codex home: )/;

const statusIn = (m: string | undefined) =>
  Number(/(?:unexpected status|last status:) (\d{3})\b/.exec(m ?? '')?.[1]) || undefined;

function remember(state: StreamState, message: string): void {
  const list = (state.errors ??= []);
  if (list.at(-1) !== message) list.push(message);
  if (list.length > 20) list.splice(0, list.length - 20);
}

/**
 * When codex's usage-limit message says the window reopens: "try again in 2 hours 5 minutes"
 * or "try again at 3:05 PM" / "at Sep 19th, 2026 3:05 PM" (local time).
 */
export function codexReset(message: string, now: number): string | undefined {
  const rel = /try again in ((?:\d+\s*(?:days?|hours?|minutes?|seconds?)[\s,and]*)+)/i.exec(message);
  if (rel) {
    const unit: Record<string, number> = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1000 };
    let ms = 0;
    for (const [, n, u] of rel[1]!.matchAll(/(\d+)\s*([dhms])/gi)) ms += Number(n) * unit[u!.toLowerCase()]!;
    return ms > 0 ? new Date(now + ms).toISOString() : undefined;
  }
  const at = /try again at ([^\n]+?)\.?$/im.exec(message)?.[1]?.replace(/(\d)(st|nd|rd|th),/, '$1,');
  if (!at) return undefined;
  const clock = /^(\d{1,2}):(\d{2}) ?([AP]M)$/i.exec(at.trim());
  if (clock) {
    const d = new Date(now);
    d.setHours((Number(clock[1]) % 12) + (/p/i.test(clock[3]!) ? 12 : 0), Number(clock[2]), 0, 0);
    return d.toISOString();
  }
  const t = Date.parse(at);
  return Number.isNaN(t) ? undefined : new Date(t).toISOString();
}

const TOML_ESCAPES: Record<string, string> = {
  '\\': '\\\\',
  '"': '\\"',
  '\b': '\\b',
  '\t': '\\t',
  '\n': '\\n',
  '\f': '\\f',
  '\r': '\\r',
};
/** A TOML basic string: quote, backslash and every control character (DEL included) escaped. */
export const tomlString = (s: string) =>
  `"${s.replace(/[\\"\u0000-\u001f\u007f]/g, (c) => TOML_ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)}"`;

/**
 * codex's `-c` overrides that define the server (values are TOML). codex gives a server 10 s to start
 * by default, which a loaded machine can use up starting node: a server given up on means a turn without lazy's tools.
 * It gives a tool call 60 s, but lazy_wait and lazy_ask last as long as a subtask's turn: a day leaves their own timeout in charge.
 */
export const codexMcpArgs = (w: McpServer): string[] => [
  '-c',
  'mcp_servers.lazy.startup_timeout_sec=30',
  '-c',
  'mcp_servers.lazy.tool_timeout_sec=86400',
  '-c',
  `mcp_servers.lazy.command=${tomlString(w.argv[0]!)}`,
  '-c',
  `mcp_servers.lazy.args=[${w.argv.slice(1).map(tomlString).join(', ')}]`,
  '-c',
  `mcp_servers.lazy.env={${Object.entries(w.env)
    .map(([k, v]) => `${k} = ${tomlString(v)}`)
    .join(', ')}}`,
];

/** codex's turn.completed usage (the thread's so far), normalized: its input_tokens include the cached ones. */
export function codexUsage(u: Record<string, unknown>): Usage {
  const n = usageOf({
    input_tokens: u.input_tokens,
    output_tokens: u.output_tokens,
    cache_read_input_tokens: u.cached_input_tokens,
    cache_creation_input_tokens: u.cache_write_input_tokens,
  });
  return { ...n, input_tokens: Math.max(0, n.input_tokens - n.cache_read_input_tokens) };
}

const compact = (v: unknown) => (v === undefined || v === null ? '' : typeof v === 'string' ? v : JSON.stringify(v));

/** A command_execution item: started, the call; completed, its result with the exit code. */
function commandEvents(type: string, item: Record<string, any>): StreamEvent[] {
  const command = unwrapShell(String(item.command ?? ''));
  const id = typeof item.id === 'string' ? { id: item.id } : {};
  if (type === 'item.started') return [{ kind: 'tool', ...id, name: 'shell', detail: command, shell: true }];
  if (type !== 'item.completed') return [];
  const code = typeof item.exit_code === 'number' ? item.exit_code : undefined;
  const ok = item.status === 'completed' && (code ?? 0) === 0;
  const text = ok ? lastLine(item.aggregated_output) : lastLine(item.aggregated_output) || String(item.status ?? '');
  return [{ kind: 'result', ...id, ok, ...(code !== undefined ? { exit_code: code } : {}), command, text }];
}

/** Any other item: one event when it completes (a tool call that also starts shows its call then). */
function itemEvents(type: string, item: Record<string, any>): StreamEvent[] {
  if (item.type === 'command_execution') return commandEvents(type, item);
  const id = typeof item.id === 'string' ? { id: item.id } : {};
  if (item.type === 'mcp_tool_call') {
    if (type === 'item.started')
      return [{ kind: 'tool', ...id, name: `${item.server}.${item.tool}`, detail: compact(item.arguments) }];
    if (type !== 'item.completed') return [];
    const ok = item.status === 'completed' && !item.error;
    return [
      { kind: 'result', ...id, ok, text: lastLine(compact(item.error?.message ?? item.result?.content?.[0]?.text)) },
    ];
  }
  if (type !== 'item.completed') return [];
  if (item.type === 'agent_message' && typeof item.text === 'string') return [{ kind: 'text', text: item.text }];
  if (item.type === 'file_change' && Array.isArray(item.changes)) {
    const files = item.changes.map((c: Record<string, unknown>) => `${c.path} (${c.kind})`).join(', ');
    const edit: StreamEvent = { kind: 'tool', ...id, name: 'edit', detail: files };
    return item.status === 'failed' ? [edit, { kind: 'result', ...id, ok: false, text: 'patch failed' }] : [edit];
  }
  if (item.type === 'web_search') return [{ kind: 'tool', ...id, name: 'web_search', detail: compact(item.query) }];
  if (item.type === 'error' && typeof item.message === 'string') return [{ kind: 'note', text: item.message }];
  return [];
}

/** codex's "Reconnecting... 2/5 (why)" and "Reconnecting... waiting for network (why)". */
function errorEvents(message: string): StreamEvent[] {
  const r = /^Reconnecting\.\.\.\s*(?:(\d+)\/(\d+))?\s*(.*)$/s.exec(message);
  if (!r) return [{ kind: 'error', text: message }];
  const what = r[3]!.replace(/^\((.*)\)$/s, '$1') || 'reconnecting';
  return [{ kind: 'retry', what, ...(r[1] ? { attempt: Number(r[1]), max: Number(r[2]) } : {}) }];
}

/** One line of codex's exec JSONL as events; the parser parseLine and the follow view share. */
function codexEvents(j: Record<string, any>): StreamEvent[] {
  if (typeof j.type === 'string' && j.type.startsWith('item.') && j.item && typeof j.item === 'object')
    return itemEvents(j.type, j.item);
  if (j.type === 'thread.started') return [{ kind: 'note', text: `codex thread ${j.thread_id}` }];
  if (j.type === 'turn.completed') {
    const u = j.usage ?? {};
    const tokens =
      typeof u.input_tokens === 'number' ? `${u.input_tokens} in / ${u.output_tokens ?? 0} out tokens` : '';
    return [{ kind: 'end', ok: true, text: tokens || 'done' }];
  }
  if (j.type === 'turn.failed') return [{ kind: 'end', ok: false, text: String(j.error?.message ?? 'turn failed') }];
  if (j.type === 'error' && typeof j.message === 'string') return errorEvents(j.message);
  return [];
}

export const codex: Adapter = {
  argv(spec, input) {
    const sandbox = input.mode === 'ask' ? 'read-only' : (spec.permissionMode ?? 'workspace-write');
    const opts = ['--json', '-c', `sandbox_mode=${tomlString(sandbox)}`, ...(input.mcp ? codexMcpArgs(input.mcp) : [])];
    // -m is exec's own option, given before `resume` (older releases take it nowhere else).
    const exec = [...spec.command, 'exec', ...(input.model ? ['-m', input.model] : [])];
    // '--' ends the options: neither a session id nor a prompt is ever read as a flag.
    return input.sessionId
      ? [...exec, 'resume', ...opts, '--', input.sessionId, input.prompt]
      : [...exec, ...opts, '--', input.prompt];
  },

  events(line) {
    const j = jsonLine(line);
    return j ? codexEvents(j) : [{ kind: 'raw', line }];
  },

  parseLine(line, state) {
    const j = jsonLine(line);
    if (!j) return 'progress';
    if (j.item?.type === 'command_execution') collectCommands(state, commandEvents(j.type, j.item));
    if (j.type === 'thread.started' && typeof j.thread_id === 'string') state.sessionId = j.thread_id;
    else if (j.type === 'item.completed' && j.item?.type === 'agent_message' && typeof j.item.text === 'string')
      state.result = j.item.text;
    else if (j.type === 'turn.completed') {
      state.isError = false;
      if (j.usage && typeof j.usage === 'object') state.usageCumulative = codexUsage(j.usage);
    } else if (j.type === 'turn.failed') {
      state.isError = true;
      state.errorText = String(j.error?.message ?? 'turn failed');
      remember(state, state.errorText);
    } else if (j.type === 'error' && typeof j.message === 'string') {
      state.retry = { message: j.message, count: (state.retry?.count ?? 0) + 1 };
      remember(state, j.message);
      return /reconnecting/i.test(j.message) ? 'retry' : 'progress';
    }
    return 'progress';
  },

  classify(x): Classified {
    const { state } = x;
    const errors = state.errors ?? [];
    const last = state.errorText ?? errors.at(-1);
    const reason = oneLine(last, exitReason(x));
    const limit = errors.find((m) => /you've hit your usage limit|usage_limit_reached/i.test(m));
    if (limit) {
      const resetAt = codexReset(limit, now());
      return { cls: 'usage_limit', reason: oneLine(limit, 'usage limit reached'), ...(resetAt ? { resetAt } : {}) };
    }
    // Before a thread starts, codex reports its own set-up errors on stderr, one fixed line each.
    const setup = state.sessionId
      ? undefined
      : x.tail
          .split('\n')
          .map((l) => l.trim())
          .find((l) => SETUP.test(l));
    if (setup) return { cls: 'fatal_config', reason: setup };
    for (const m of [last, ...[...errors].reverse()]) {
      const cls = classOfStatus(statusIn(m)) ?? FIXED.find(([re]) => re.test(m ?? ''))?.[1];
      if (cls) return { cls, reason };
    }
    // Socket errors: one refused connection among them makes the endpoint unreachable.
    const net = errors.map(classOfErrorMessage).filter(Boolean);
    const cls = net.includes('transient_unreachable') ? 'transient_unreachable' : net[0];
    return cls ? { cls, reason } : unknownFailure(x, last);
  },

  sessionMissing({ tail, state }) {
    return /no rollout found for thread id/i.test(`${state.errorText ?? ''}\n${tail}`);
  },

  resultText(state) {
    return state.result;
  },
};
