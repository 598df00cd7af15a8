import type { Adapter, McpServer, StreamEvent, TurnInput } from './adapter.js';
import { jsonLine, exitReason, unknownFailure, type StreamState } from './adapter.js';
import { collectCommands } from './commands.js';
import { classOfErrorMessage, classOfStatus, isoFromEpoch, oneLine, type Classified } from './taxonomy.js';
import type { FailureClass } from './taxonomy.js';

// opencode (opencode-ai 1.18.33, measured offline on this machine; fixtures in
// test/fixtures/agents/opencode-1.18.33/):
// - Headless: `opencode run --format json [--session <id>] [--model provider/model] -- <words>` prints JSON
//   lines: `step_start`, `text` (a finished text part), `tool_use` (a tool part once completed or failed:
//   `part.tool`, `part.callID`, `part.state.{status,input,output,error,metadata.exit}`), `step_finish`
//   (`part.reason` tool-calls|stop, `part.tokens.{input,output,reasoning,cache.{read,write}}` per API call,
//   `part.cost`) and `error` (`error.name`, `error.data.{message,statusCode,responseHeaders,responseBody}`);
//   every line carries `sessionID`. It retries 429/5xx/socket errors itself (5 times, honouring retry-after)
//   and prints nothing while it does; the error line comes once it gives up, then exit 1.
// - The message words are joined with spaces, each word that holds a space wrapped in quotes: the prompt is
//   passed split on spaces after `--`, which joins back to exactly the prompt (and no word is read as a flag).
// - Stdin that is not a TTY is read and added to the message (lazy's is /dev/null: nothing is added).
// - A new session asks the model for a title first (one more API call) unless `--title` is given; bare
//   `--title` titles it with the prompt's start. Sessions live in opencode's data dir
//   ($XDG_DATA_HOME/opencode/opencode.db), `--session <id>` continues one (its request carries the conversation),
//   an unknown id prints `Error: Session not found` on stderr, exit 1, no JSON.
// - Providers come from its config (global $XDG_CONFIG_HOME/opencode/opencode.json, OPENCODE_CONFIG, the
//   project's opencode.json, then OPENCODE_CONFIG_CONTENT, merged in that order): a provider with
//   `"npm": "@ai-sdk/anthropic"` (bundled) and `options.baseURL`/`options.apiKey` speaks the Messages API there.
// - At start it fetches the models.dev catalogue (OPENCODE_DISABLE_MODELS_FETCH=1 stops it) and installs its
//   plugin package from the npm registry in the background; offline, both fail quietly and the turn runs.
// - Permissions: the config's `permission` (edit, bash, webfetch, external_directory: allow|ask|deny); in run
//   mode an `ask` is auto-rejected (`--auto` approves it instead). external_directory denies a write tool's path
//   and the paths a bash command names, but not a redirection's target (`echo y > /tmp/x` ran): see opencodeConfig.
// - MCP: the config's `mcp.<name>` = {type: "local", command: [argv], environment, timeout}; the servers get
//   opencode's whole environment plus `environment`; a server's tools are `<name>_<tool>` (lazy_lazy_finish).
//   `timeout` bounds both the connection and every tool call (default 5 s): a day leaves lazy_wait's own.
// lazy gives all of this per run through OPENCODE_CONFIG_CONTENT, never the user's files or the worktree.

/** The input field that names what a tool call works on, by opencode tool. */
const TOOL_DETAIL: Record<string, string> = {
  bash: 'command',
  write: 'filePath',
  edit: 'filePath',
  read: 'filePath',
  glob: 'pattern',
  grep: 'pattern',
  webfetch: 'url',
  task: 'description',
};

const compact = (v: unknown) => {
  const s = v === undefined || v === null ? '' : typeof v === 'string' ? v : JSON.stringify(v);
  return s === '{}' ? '' : s;
};
const firstLine = (s: unknown) =>
  typeof s === 'string'
    ? (s
        .split('\n')
        .map((l) => l.trim())
        .find(Boolean) ?? '')
    : '';

/** One finished tool part: the call, then its result (bash reports its exit code in metadata.exit). */
function toolEvents(part: Record<string, any>): StreamEvent[] {
  const name = String(part.tool ?? '?');
  const state: Record<string, any> = part.state ?? {};
  const input = state.input ?? {};
  const id = typeof part.callID === 'string' ? { id: part.callID } : {};
  const named = input[TOOL_DETAIL[name] ?? ''];
  const detail = typeof named === 'string' ? named : compact(input);
  const call: StreamEvent = { kind: 'tool', ...id, name, detail, ...(name === 'bash' ? { shell: true } : {}) };
  if (state.status === 'error') return [call, { kind: 'result', ...id, ok: false, text: firstLine(state.error) }];
  if (state.status !== 'completed') return [call];
  const exit = typeof state.metadata?.exit === 'number' ? state.metadata.exit : undefined;
  const ok = (exit ?? 0) === 0;
  const text = ok
    ? firstLine(state.output)
    : (String(state.output ?? '')
        .split('\n')
        .map((l) => l.trim())
        .filter(Boolean)
        .at(-1) ?? '');
  return [call, { kind: 'result', ...id, ok, ...(exit !== undefined ? { exit_code: exit } : {}), text }];
}

/** An error line's message, with the HTTP status when it names one. */
function errorMessage(e: Record<string, any> | undefined): string {
  const data = e?.data ?? {};
  const message = typeof data.message === 'string' ? data.message : String(e?.name ?? 'error');
  return typeof data.statusCode === 'number' ? `${message} (${data.statusCode})` : message;
}

/** One line of `opencode run --format json` as events; the parser parseLine and the follow view share. */
function opencodeEvents(j: Record<string, any>): StreamEvent[] {
  const part: Record<string, any> = j.part ?? {};
  if (j.type === 'text' && typeof part.text === 'string' && part.text.trim())
    return [{ kind: 'text', text: part.text }];
  if (j.type === 'tool_use') return toolEvents(part);
  // The last API call's step ends the turn; its tokens are that call's only, so the line names none.
  if (j.type === 'step_finish' && part.reason !== 'tool-calls')
    return [{ kind: 'end', ok: true, text: part.reason === 'stop' ? 'done' : `done (${part.reason})` }];
  if (j.type === 'error') return [{ kind: 'end', ok: false, text: errorMessage(j.error) }];
  return [];
}

/** The error type of the provider's own error body (Anthropic `{error: {type}}`, OpenAI `{error: {code|type}}`). */
function bodyErrorType(body: unknown): string | undefined {
  if (typeof body !== 'string') return undefined;
  const j = jsonLine(body);
  const e = j?.error;
  return typeof e?.type === 'string' ? e.type : typeof e?.code === 'string' ? e.code : undefined;
}

/** The provider error types lazy knows (the body of an error the CLI gave up on). */
const ERROR_TYPES: Record<string, FailureClass> = {
  authentication_error: 'fatal_auth',
  permission_error: 'fatal_auth',
  invalid_api_key: 'fatal_auth',
  insufficient_quota: 'fatal_auth',
  rate_limit_error: 'transient_overload',
  overloaded_error: 'transient_overload',
  rate_limit_exceeded: 'transient_overload',
  // opencode's own: a provider it has no credentials for.
  ProviderAuthError: 'fatal_auth',
};

/** Folds an error line into the state: its message, HTTP status, error type and any usage-window headers. */
function foldError(state: StreamState, e: Record<string, any> | undefined): void {
  const data = e?.data ?? {};
  state.isError = true;
  state.errorText = errorMessage(e);
  if (typeof data.statusCode === 'number') state.apiStatus = data.statusCode;
  const type = bodyErrorType(data.responseBody) ?? (typeof e?.name === 'string' ? e.name : undefined);
  if (type) state.errorType = type;
  // Anthropic's unified rate-limit headers (a subscription's usage window): rejected means the window is spent.
  const h: Record<string, unknown> = data.responseHeaders ?? {};
  const status = h['anthropic-ratelimit-unified-status'];
  if (typeof status === 'string') {
    const resetsAt = isoFromEpoch(Number(h['anthropic-ratelimit-unified-reset']));
    state.rateLimit = { status, ...(resetsAt ? { resetsAt } : {}) };
  }
}

/** Adds one API call's tokens (a step_finish) to the turn's; reasoning counts as output, as Anthropic bills it. */
function foldUsage(state: StreamState, part: Record<string, any>): void {
  const t = part.tokens;
  if (t && typeof t === 'object') {
    const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0);
    const u = state.usage ?? {
      input_tokens: 0,
      output_tokens: 0,
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 0,
    };
    state.usage = {
      input_tokens: u.input_tokens + n(t.input),
      output_tokens: u.output_tokens + n(t.output) + n(t.reasoning),
      cache_read_input_tokens: u.cache_read_input_tokens + n(t.cache?.read),
      cache_creation_input_tokens: u.cache_creation_input_tokens + n(t.cache?.write),
    };
  }
  // A model with no price in its config costs 0: that is no reported cost.
  if (typeof part.cost === 'number' && part.cost > 0) state.costUsd = (state.costUsd ?? 0) + part.cost;
}

/**
 * The per-run config opencode merges over the user's own. By default edits are allowed and nothing else, as
 * claude's acceptEdits: bash is left to a question, which run mode rejects, since a shell is not held to the
 * worktree (external_directory checks the paths a command names, not where its redirections write; measured).
 * `permission_mode auto` leaves bash to the user's config (opencode's default allows it) and adds `--auto`.
 * Other directories are denied either way; an ask turn is read-only.
 */
export function opencodeConfig(input: TurnInput, permissionMode?: string): Record<string, unknown> {
  const permission =
    input.mode === 'ask'
      ? { edit: 'deny', bash: 'deny', external_directory: 'deny' }
      : permissionMode === 'auto'
        ? { edit: 'allow', external_directory: 'deny' }
        : { edit: 'allow', bash: 'ask', external_directory: 'deny' };
  // Left to itself, opencode ends the turn at the first call it rejects; the model is told instead, as claude's is.
  const experimental = { continue_loop_on_deny: true };
  return { permission, experimental, ...(input.mcp ? { mcp: { lazy: opencodeMcp(input.mcp) } } : {}) };
}

const opencodeMcp = (w: McpServer) => ({
  type: 'local',
  command: w.argv,
  environment: w.env,
  enabled: true,
  timeout: 86_400_000,
});

export const opencode: Adapter = {
  argv(spec, input) {
    return [
      ...spec.command,
      'run',
      '--format',
      'json',
      // `auto` approves whatever the user's config leaves to a question (run mode rejects those).
      ...(spec.permissionMode === 'auto' && input.mode !== 'ask' ? ['--auto'] : []),
      ...(input.model ? ['--model', input.model] : []),
      // A new session is titled with the prompt's start, not by one more call to the model.
      ...(input.sessionId ? ['--session', input.sessionId] : ['--title']),
      '--',
      ...input.prompt.split(' '),
    ];
  },

  env: (input, spec) => ({
    OPENCODE_CONFIG_CONTENT: JSON.stringify(opencodeConfig(input, spec.permissionMode)),
    OPENCODE_DISABLE_AUTOUPDATE: '1',
  }),

  events(line) {
    const j = jsonLine(line);
    return j ? opencodeEvents(j) : [{ kind: 'raw', line }];
  },

  parseLine(line, state) {
    const j = jsonLine(line);
    if (!j) return 'progress';
    if (typeof j.sessionID === 'string' && !state.sessionId) state.sessionId = j.sessionID;
    const part: Record<string, any> = j.part ?? {};
    if (j.type === 'tool_use') collectCommands(state, toolEvents(part));
    else if (j.type === 'text' && typeof part.text === 'string' && part.text.trim()) state.result = part.text;
    else if (j.type === 'step_finish') {
      foldUsage(state, part);
      if (part.reason !== 'tool-calls') state.isError = false;
    } else if (j.type === 'error') foldError(state, j.error);
    return 'progress';
  },

  classify(x): Classified {
    const { state } = x;
    const reason = oneLine(state.errorText, exitReason(x));
    if (state.rateLimit?.status === 'rejected' && classOfStatus(state.apiStatus) !== 'fatal_auth')
      return {
        cls: 'usage_limit',
        reason: oneLine(state.errorText, 'usage limit reached'),
        ...(state.rateLimit.resetsAt ? { resetAt: state.rateLimit.resetsAt } : {}),
      };
    const cls =
      classOfStatus(state.apiStatus) ??
      ERROR_TYPES[state.errorType ?? ''] ??
      (state.isError ? classOfErrorMessage(state.errorText) : undefined);
    return cls ? { cls, reason } : unknownFailure(x, state.errorText);
  },

  sessionMissing({ state, tail }) {
    // Printed on stderr before any event, when --session names a session its data dir does not hold.
    return !state.isError && /^(?:\S*\s*)?Error: (?:\S*)Session not found/m.test(tail.replace(/\u001b\[[0-9;]*m/g, ''));
  },

  resultText(state) {
    return state.result;
  },
};
