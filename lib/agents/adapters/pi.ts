import type { Adapter, StreamEvent } from './adapter.js';
import { usageOf, type Usage } from '../../model/usage.js';
import { exitReason, jsonLine, unknownFailure, type StreamState } from './adapter.js';
import { collectCommands } from './commands.js';
import { classOfErrorMessage, classOfStatus, oneLine, type Classified, type FailureClass } from './taxonomy.js';

// pi (@mariozechner/pi-coding-agent) headless: `pi -p --mode json <prompt>`, its session kept under
// the worktree's .lazy/ (lazy's own, excluded from git; never the user's ~/.pi) and resumed with
// `--session <id>` (recorded fixtures, pi 0.73.1). pi runs its tools (read, bash, edit, write)
// without asking; ask turns get the read-only tools only (`--tools`).
// pi exits 0 even when the model API failed: the truth is the last assistant message's stopReason.
// Its errorMessage is the provider SDK's error as pi received it; for the Anthropic and OpenAI SDKs
// an HTTP error is `<status> <JSON body>`, and the status and the body's error type are read from
// that form only. pi's own auto_retry events carry the same message.

/** Where lazy keeps pi's sessions, relative to the task's worktree (pi's cwd): lazy's own directory there. */
export const PI_SESSION_DIR = '.lazy/pi-sessions';

/** The tools of an ask turn: pi's read-only ones. */
export const PI_READ_ONLY_TOOLS = 'read,grep,find,ls';

/** The error types of the API bodies (Anthropic's and OpenAI's) that make a class on their own. */
const ERROR_TYPES: Record<string, FailureClass> = {
  authentication_error: 'fatal_auth',
  permission_error: 'fatal_auth',
  invalid_api_key: 'fatal_auth',
  insufficient_quota: 'fatal_auth',
  overloaded_error: 'transient_overload',
  rate_limit_error: 'transient_overload',
  rate_limit_exceeded: 'transient_overload',
};

/**
 * Streaming deltas: each repeats the whole message so far, so parsing them all costs the square of a
 * long answer. Their content arrives again, whole, in the message_end and tool_execution_end that follow.
 */
const STREAMING = /^\{"type":"(?:message_update|tool_execution_update)"/;

/** pi's own set-up errors on stderr, one fixed line each, before the model answered anything. */
const SETUP: [RegExp, FailureClass][] = [[/^No API key found for the selected model\.$/, 'fatal_auth']];

/** The SDKs' fixed message for a request that never got a response. */
const NO_RESPONSE = /^Connection error\.$/;

/** The status and error type of an SDK error message `<status> <JSON body>`, when it has that form. */
export function apiError(message: unknown): { status?: number; type?: string } {
  const m = typeof message === 'string' ? /^(\d{3}) (\{[\s\S]*\})$/.exec(message.trim()) : null;
  if (!m) return {};
  let type: unknown;
  try {
    const body = JSON.parse(m[2]!) as Record<string, any>;
    type = body?.error?.type ?? body?.error?.code ?? body?.type;
  } catch {
    /* the status alone */
  }
  return { status: Number(m[1]), ...(typeof type === 'string' && type !== 'error' ? { type } : {}) };
}

/** pi's message usage (one model response), normalized: its input excludes cache reads, as lazy's does. */
export function piUsage(u: Record<string, unknown>): Usage {
  return usageOf({
    input_tokens: u.input,
    output_tokens: u.output,
    cache_read_input_tokens: u.cacheRead,
    cache_creation_input_tokens: u.cacheWrite,
  });
}

/** The input field that names what a tool call works on (others show their input as JSON). */
const TOOL_DETAIL: Record<string, string> = {
  bash: 'command',
  read: 'path',
  write: 'path',
  edit: 'path',
  ls: 'path',
  grep: 'pattern',
  find: 'pattern',
};

function toolDetail(name: string, args: unknown): string {
  const named = ((args ?? {}) as Record<string, unknown>)[TOOL_DETAIL[name] ?? ''];
  if (typeof named === 'string') return named;
  const json = JSON.stringify(args ?? {});
  return json === '{}' ? '' : json;
}

const textOf = (content: unknown) =>
  Array.isArray(content)
    ? content
        .filter((b) => b?.type === 'text' && typeof b.text === 'string')
        .map((b) => b.text as string)
        .join('\n')
    : '';

/** pi's bash tool ends the output of a failed command with this line. */
const EXIT_LINE = /\n*Command exited with code (\d+)\s*$/;

/** A tool's end: ok, or failed with the exit code its bash tool reports. */
function toolEnd(j: Record<string, any>): StreamEvent {
  const text = textOf(j.result?.content).trim();
  const id = typeof j.toolCallId === 'string' ? { id: j.toolCallId } : {};
  if (j.isError !== true) return { kind: 'result', ...id, ok: true, exit_code: 0, text };
  const code = j.toolName === 'bash' ? EXIT_LINE.exec(text) : null;
  return {
    kind: 'result',
    ...id,
    ok: false,
    ...(code ? { exit_code: Number(code[1]) } : {}),
    text: code ? text.slice(0, code.index).trim() : text,
  };
}

/** An assistant message as pi ends it: its text, or its error. Tool calls show when they run. */
function messageEvents(m: Record<string, any>): StreamEvent[] {
  if (m.role !== 'assistant') return [];
  if (m.stopReason === 'error' || m.stopReason === 'aborted')
    return [{ kind: 'error', text: String(m.errorMessage ?? m.stopReason) }];
  const text = textOf(m.content);
  return text.trim() ? [{ kind: 'text', text }] : [];
}

/** The end of one run of pi's agent loop: failed when its last assistant message did. */
function endEvent(messages: Record<string, any>[]): StreamEvent {
  const said = messages.filter((m) => m?.role === 'assistant');
  const last = said.at(-1);
  if (last?.stopReason === 'error' || last?.stopReason === 'aborted')
    return { kind: 'end', ok: false, text: String(last.errorMessage ?? last.stopReason) };
  const cost = said.reduce((s, m) => s + (Number(m.usage?.cost?.total) || 0), 0);
  const steps = `${said.length} step${said.length === 1 ? '' : 's'}`;
  return { kind: 'end', ok: true, text: `${steps}${cost > 0 ? `, $${cost.toFixed(4)}` : ''}` };
}

function retryWhat(message: unknown): string {
  const { status, type } = apiError(message);
  if (status) return `API error (${status}${type ? ` ${type}` : ''})`;
  return typeof message === 'string' && message ? oneLine(message, 'API error') : 'API error';
}

/** One line of pi's JSON event stream as events; the parser parseLine and the follow view share. */
function piEvents(j: Record<string, any>): StreamEvent[] {
  switch (j.type) {
    case 'session':
      return [{ kind: 'note', text: `pi session ${j.id ?? '?'}` }];
    case 'message_end':
      return j.message && typeof j.message === 'object' ? messageEvents(j.message) : [];
    case 'tool_execution_start': {
      const name = String(j.toolName ?? 'tool');
      const id = typeof j.toolCallId === 'string' ? { id: j.toolCallId } : {};
      return [
        { kind: 'tool', ...id, name, detail: toolDetail(name, j.args), ...(name === 'bash' ? { shell: true } : {}) },
      ];
    }
    case 'tool_execution_end':
      return [toolEnd(j)];
    case 'agent_end':
      return [endEvent(Array.isArray(j.messages) ? j.messages : [])];
    case 'auto_retry_start':
      return [
        {
          kind: 'retry',
          what: retryWhat(j.errorMessage),
          ...(typeof j.attempt === 'number' ? { attempt: j.attempt } : {}),
          ...(typeof j.maxAttempts === 'number' ? { max: j.maxAttempts } : {}),
          ...(typeof j.delayMs === 'number' ? { delayMs: j.delayMs } : {}),
        },
      ];
    case 'auto_retry_end':
      return j.success === false ? [{ kind: 'error', text: `gave up retrying: ${j.finalError ?? 'error'}` }] : [];
    default:
      return [];
  }
}

/** Folds an assistant message pi ended: its usage and cost, and whether the run stands failed. */
function foldMessage(m: Record<string, any>, state: StreamState): void {
  if (m.role !== 'assistant') return;
  if (m.usage && typeof m.usage === 'object') {
    const u = piUsage(m.usage);
    const sum = state.usage ?? usageOf(null);
    state.usage = {
      input_tokens: sum.input_tokens + u.input_tokens,
      output_tokens: sum.output_tokens + u.output_tokens,
      cache_read_input_tokens: sum.cache_read_input_tokens + u.cache_read_input_tokens,
      cache_creation_input_tokens: sum.cache_creation_input_tokens + u.cache_creation_input_tokens,
    };
    const cost = Number(m.usage.cost?.total);
    if (Number.isFinite(cost) && cost > 0) state.costUsd = (state.costUsd ?? 0) + cost;
  }
  const failed = m.stopReason === 'error' || m.stopReason === 'aborted';
  state.isError = failed;
  if (failed) {
    state.errorText = String(m.errorMessage ?? m.stopReason);
    const { status, type } = apiError(m.errorMessage);
    state.apiStatus = status;
    state.errorType = type;
  } else {
    // A later answer (after pi's own retry) is the turn's state: earlier errors are over.
    delete state.apiStatus;
    delete state.errorType;
    delete state.errorText;
    const text = textOf(m.content);
    if (text.trim()) state.result = text;
  }
}

function noteRetry(j: Record<string, any>, state: StreamState): void {
  const { status, type } = apiError(j.errorMessage);
  state.retry = {
    message: `API retry ${j.attempt}/${j.maxAttempts}: ${oneLine(String(j.errorMessage ?? ''), 'error')}`,
    count: (state.retry?.count ?? 0) + 1,
    ...(status ? { status } : {}),
    ...(type ? { type } : {}),
  };
}

export const pi: Adapter = {
  argv(spec, input) {
    // An ask turn is read-only; a configured permission_mode is pi's tool allow-list for work turns.
    const tools = input.mode === 'ask' ? PI_READ_ONLY_TOOLS : spec.permissionMode;
    return [
      ...spec.command,
      '--mode',
      'json',
      '--session-dir',
      PI_SESSION_DIR,
      ...(input.sessionId ? ['--session', input.sessionId] : []),
      ...(input.model ? ['--model', input.model] : []),
      ...(tools ? ['--tools', tools] : []),
      // pi takes the word after -p as the prompt unless it starts with '-' (an option) or '@' (a file to attach).
      '-p',
      /^[-@]/.test(input.prompt) ? ` ${input.prompt}` : input.prompt,
    ];
  },

  events(line) {
    if (STREAMING.test(line)) return [];
    const j = jsonLine(line);
    return j ? piEvents(j) : [{ kind: 'raw', line }];
  },

  parseLine(line, state) {
    if (STREAMING.test(line)) return 'progress';
    const j = jsonLine(line);
    if (!j) return 'progress';
    if (j.type === 'session' && typeof j.id === 'string') state.sessionId = j.id;
    else if (j.type === 'message_end' && j.message && typeof j.message === 'object') foldMessage(j.message, state);
    else if (j.type === 'tool_execution_start' || j.type === 'tool_execution_end') collectCommands(state, piEvents(j));
    else if (j.type === 'auto_retry_start') {
      noteRetry(j, state);
      return 'retry';
    } else if (j.type === 'auto_retry_end' && j.success === false) {
      state.isError = true;
      state.errorText = String(j.finalError ?? state.errorText ?? 'gave up retrying');
    }
    return 'progress';
  },

  classify(x): Classified {
    const { state } = x;
    // Every assistant message carries usage: none means the model was never reached.
    const lines = state.usage ? [] : x.tail.split('\n').map((l) => l.trim());
    for (const [re, cls] of SETUP) {
      const line = lines.find((l) => re.test(l));
      if (line) return { cls, reason: line };
    }
    const reason = oneLine(state.errorText, state.retry?.message ?? exitReason(x));
    const cls =
      classOfStatus(state.apiStatus) ??
      ERROR_TYPES[state.errorType ?? ''] ??
      (NO_RESPONSE.test(state.errorText ?? '') ? 'transient_network' : undefined) ??
      classOfErrorMessage(state.isError ? state.errorText : undefined);
    return cls ? { cls, reason } : unknownFailure(x, state.errorText);
  },

  sessionMissing({ state, tail }) {
    // Before any event, pi names a --session it cannot find on stderr, one fixed line.
    return !state.sessionId && /^No session found matching '/m.test(tail);
  },

  resultText(state) {
    return state.result;
  },
};
