import type { Adapter, StreamEvent } from './adapter.js';
import { usageOf } from '../../model/usage.js';
import { exitReason, jsonLine, unknownFailure, type StreamState } from './adapter.js';
import { collectCommands } from './commands.js';
import {
  classOfErrorMessage,
  classOfStatus,
  isoFromEpoch,
  oneLine,
  type Classified,
  type FailureClass,
} from './taxonomy.js';

// Claude Code headless: `claude -p <prompt> --output-format stream-json --verbose`,
// later turns with `--resume <session_id>`. Its result line says `subtype: success`
// even for failures; `is_error` is the truth (recorded fixtures, claude 2.1.197).
// Failures are classified from structured fields only: the result line's api_error_status,
// the error type on the CLI's own assistant error message, its api_retry lines, and a
// rejected rate_limit_event (a spent usage window, with resetsAt). The result text of a
// failure is used for the reason and for socket errors the CLI names, never for a fatal class.

/** The error types Claude Code puts on its own error messages. */
const ERROR_TYPES: Record<string, FailureClass> = {
  authentication_failed: 'fatal_auth',
  billing_error: 'fatal_auth',
  rate_limit: 'transient_overload',
  overloaded: 'transient_overload',
};

/** A spent usage window: a rejected rate_limit_event, or the legacy `Claude AI usage limit reached|<epoch>` result. */
function usageLimit(state: StreamState): { resetAt?: string; type?: string } | undefined {
  if (state.rateLimit?.status === 'rejected')
    return {
      ...(state.rateLimit.resetsAt ? { resetAt: state.rateLimit.resetsAt } : {}),
      ...(state.rateLimit.type ? { type: state.rateLimit.type } : {}),
    };
  const legacy = state.isError ? /^Claude AI usage limit reached\|(\d{9,13})$/.exec(state.result?.trim() ?? '') : null;
  if (!legacy) return undefined;
  const resetAt = isoFromEpoch(Number(legacy[1]));
  return resetAt ? { resetAt } : {};
}

/** The input field that names what a tool call works on, by tool (others show their input). */
const TOOL_DETAIL: Record<string, string> = {
  Bash: 'command',
  Write: 'file_path',
  Edit: 'file_path',
  MultiEdit: 'file_path',
  Read: 'file_path',
  NotebookEdit: 'notebook_path',
  Glob: 'pattern',
  Grep: 'pattern',
  WebFetch: 'url',
  WebSearch: 'query',
  Task: 'description',
};

/** What a tool call works on: its command, file or pattern, else its input as compact JSON. */
export function toolDetail(name: string, input: unknown): string {
  const field = (input ?? {}) as Record<string, unknown>;
  const named = field[TOOL_DETAIL[name] ?? ''];
  if (typeof named === 'string') return typeof field.path === 'string' ? `${named} in ${field.path}` : named;
  const json = JSON.stringify(input ?? {});
  return json === '{}' ? '' : json;
}

/** A tool_result's content: a string, or text blocks. */
function resultText(content: unknown): string {
  const text = Array.isArray(content)
    ? content.map((b) => (typeof b?.text === 'string' ? b.text : '')).join('\n')
    : typeof content === 'string'
      ? content
      : '';
  return text.replace(/<\/?tool_use_error>/g, '').trim();
}

/** One tool_result block: a failed Bash call reports its exit code as "Exit code N" on its first line. */
function toolResult(b: Record<string, any>): StreamEvent {
  const text = resultText(b.content);
  const failed = b.is_error === true;
  const code = failed ? /^Exit code (\d+)\n?/.exec(text) : null;
  return {
    kind: 'result',
    ...(typeof b.tool_use_id === 'string' ? { id: b.tool_use_id } : {}),
    ok: !failed,
    ...(failed ? (code ? { exit_code: Number(code[1]) } : {}) : { exit_code: 0 }),
    text: code ? text.slice(code[0].length) : text,
  };
}

function messageEvents(j: Record<string, any>): StreamEvent[] {
  const content: Record<string, any>[] = Array.isArray(j.message?.content) ? j.message.content : [];
  if (j.type === 'assistant' && typeof j.error === 'string')
    return [{ kind: 'error', text: resultText(content) || j.error }];
  return content.flatMap((b): StreamEvent[] => {
    if (j.type === 'assistant' && b.type === 'text' && typeof b.text === 'string' && b.text.trim())
      return [{ kind: 'text', text: b.text }];
    if (j.type === 'assistant' && b.type === 'tool_use' && typeof b.name === 'string')
      return [
        {
          kind: 'tool',
          ...(typeof b.id === 'string' ? { id: b.id } : {}),
          name: b.name,
          detail: toolDetail(b.name, b.input),
          ...(b.name === 'Bash' ? { shell: true } : {}),
        },
      ];
    if (j.type === 'user' && b.type === 'tool_result') return [toolResult(b)];
    return [];
  });
}

function endEvents(j: Record<string, any>): StreamEvent[] {
  const denied: Record<string, any>[] = Array.isArray(j.permission_denials) ? j.permission_denials : [];
  const denials: StreamEvent[] = denied.length
    ? [{ kind: 'error', text: `permission denied: ${denied.map((d) => d.tool_name).join(', ')}` }]
    : [];
  if (j.is_error === true) {
    const why = typeof j.result === 'string' ? j.result : Array.isArray(j.errors) ? j.errors.join('; ') : '';
    return [...denials, { kind: 'end', ok: false, text: why || 'the turn failed' }];
  }
  const cost = typeof j.total_cost_usd === 'number' ? `, $${j.total_cost_usd.toFixed(4)}` : '';
  const steps = typeof j.num_turns === 'number' ? `${j.num_turns} step${j.num_turns === 1 ? '' : 's'}` : 'done';
  return [...denials, { kind: 'end', ok: true, text: `${steps}${cost}` }];
}

/** One line of claude's stream-json as events; the parser parseLine and the follow view share. */
function claudeEvents(j: Record<string, any>): StreamEvent[] {
  if (j.type === 'assistant' || j.type === 'user') return messageEvents(j);
  if (j.type === 'result') return endEvents(j);
  if (j.type === 'system' && j.subtype === 'init')
    return [{ kind: 'note', text: `claude session ${j.session_id ?? '?'}${j.model ? ` (${j.model})` : ''}` }];
  if (j.type === 'system' && j.subtype === 'api_retry') {
    const status = typeof j.error_status === 'number' ? ` (${j.error_status})` : '';
    const what =
      j.error === 'overloaded' ? 'API overloaded' : j.error === 'rate_limit' ? 'API rate limit' : 'API error';
    return [
      {
        kind: 'retry',
        what: `${what}${status}`,
        ...(typeof j.attempt === 'number' ? { attempt: j.attempt } : {}),
        ...(typeof j.max_retries === 'number' ? { max: j.max_retries } : {}),
        ...(typeof j.retry_delay_ms === 'number' ? { delayMs: j.retry_delay_ms } : {}),
      },
    ];
  }
  if (j.type === 'rate_limit_event' && j.rate_limit_info?.status === 'rejected') {
    const at = isoFromEpoch(j.rate_limit_info.resetsAt);
    return [{ kind: 'error', text: `usage limit reached${at ? `; it resets at ${at}` : ''}` }];
  }
  return [];
}

/**
 * Claude Code starts MCP servers in the background and, in print mode, begins the turn after at most a
 * few seconds whether or not they connected; a turn begun without lazy's tools has no progress or review
 * channel. These make it wait for the connection (measured: a server 8 s slow to start was left out).
 */
export const CLAUDE_MCP_WAIT = { MCP_CONNECTION_NONBLOCKING: 'false', MCP_CONNECT_TIMEOUT_MS: '30000' };

export const claude: Adapter = {
  argv(spec, input) {
    const mode = input.mode === 'ask' ? 'plan' : (spec.permissionMode ?? 'acceptEdits');
    return [
      ...spec.command,
      '-p',
      input.prompt,
      '--output-format',
      'stream-json',
      '--verbose',
      '--permission-mode',
      mode,
      // Under acceptEdits MCP calls are denied unless lazy's tools are allowed by name.
      ...(input.mcp ? ['--mcp-config', input.mcp.config, '--allowedTools', 'mcp__lazy'] : []),
      ...(input.sessionId ? ['--resume', input.sessionId] : []),
      ...(input.model ? ['--model', input.model] : []),
    ];
  },

  env: (input) => (input.mcp ? CLAUDE_MCP_WAIT : {}),

  events(line) {
    const j = jsonLine(line);
    return j ? claudeEvents(j) : [{ kind: 'raw', line }];
  },

  parseLine(line, state) {
    const j = jsonLine(line);
    if (!j) return 'progress';
    if (typeof j.session_id === 'string' && (j.type === 'system' || !state.sessionId)) state.sessionId = j.session_id;
    if (j.type === 'assistant' || j.type === 'user') collectCommands(state, messageEvents(j));
    if (j.type === 'system' && j.subtype === 'api_retry') {
      const status = typeof j.error_status === 'number' ? j.error_status : undefined;
      state.retry = {
        message: `API retry ${j.attempt}/${j.max_retries}: ${j.error ?? 'error'}${status ? ` (${status})` : ''}`,
        count: (state.retry?.count ?? 0) + 1,
        ...(status ? { status } : {}),
        ...(typeof j.error === 'string' ? { type: j.error } : {}),
      };
      return 'retry';
    }
    if (j.type === 'rate_limit_event' && j.rate_limit_info && typeof j.rate_limit_info.status === 'string') {
      const r = j.rate_limit_info;
      const resetsAt = isoFromEpoch(r.resetsAt);
      state.rateLimit = {
        status: r.status,
        ...(resetsAt ? { resetsAt } : {}),
        ...(typeof r.rateLimitType === 'string' ? { type: r.rateLimitType } : {}),
      };
    }
    if (j.type === 'assistant' && typeof j.error === 'string') state.errorType = j.error;
    if (j.type === 'result') {
      state.isError = j.is_error === true;
      if (typeof j.result === 'string') state.result = j.result;
      if (Array.isArray(j.errors)) state.errorText = j.errors.join('\n');
      if (typeof j.api_error_status === 'number') state.apiStatus = j.api_error_status;
      // Cache reads and writes are counted apart from input_tokens: all four are the turn's.
      if (j.usage && typeof j.usage === 'object') state.usage = usageOf(j.usage);
      if (typeof j.total_cost_usd === 'number') state.costUsd = j.total_cost_usd;
    }
    return 'progress';
  },

  classify(x): Classified {
    const { state } = x;
    const reason = oneLine(
      state.isError ? (state.result ?? state.errorText) : state.errorText,
      state.retry?.message ?? exitReason(x),
    );
    const limit = classOfStatus(state.apiStatus) === 'fatal_auth' ? undefined : usageLimit(state);
    if (limit)
      return {
        cls: 'usage_limit',
        reason: oneLine(state.result, `usage limit reached (${limit.type ?? 'window'})`),
        ...(limit.resetAt ? { resetAt: limit.resetAt } : {}),
      };
    const cls =
      classOfStatus(state.apiStatus) ??
      ERROR_TYPES[state.errorType ?? ''] ??
      (state.errorType ? classOfErrorMessage(state.result) : undefined) ??
      classOfStatus(state.retry?.status) ??
      ERROR_TYPES[state.retry?.type ?? ''] ??
      classOfErrorMessage(state.retry?.message);
    return cls ? { cls, reason } : unknownFailure(x, state.isError ? (state.result ?? state.errorText) : undefined);
  },

  sessionMissing({ state, tail }) {
    return /no conversation found with session id/i.test(`${state.errorText ?? ''}\n${tail}`);
  },

  resultText(state) {
    return state.result;
  },
};
