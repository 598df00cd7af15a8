import type { Adapter } from '../adapter.js';
import { exitReason, jsonLine, unknownFailure } from '../adapter.js';
import { collectCommands } from '../commands.js';
import { classOfStatus, oneLine, type Classified } from '../taxonomy.js';
import { usageOf } from '../../../model/usage.js';
import { env } from '../../../core/env.js';
import { now } from '../../../core/clock.js';
import { geminiEvents } from './stream.js';
import { geminiHome, runHomeDir } from './home.js';

// Gemini CLI headless: `gemini -p <prompt> --output-format stream-json --skip-trust
// --approval-mode auto_edit`, later turns with `--resume <session_id>` (the id its init line
// names). auto_edit lets its edit tools (write_file, replace) run and leaves out the shell tool
// (headless, a tool that would ask is not offered), as claude's acceptEdits does; `yolo` in
// agents.<name>.permission_mode lets it run commands too. --skip-trust: gemini refuses a folder
// it has not been told to trust, and a task's worktree is always new. Its settings come from a
// home of the run's own (./home.ts). Failures are classified from the result line's error (the
// API's own error object, or its status name, which gemini carries in the message), gemini's
// fixed quota messages, and its exit code, which is the HTTP status of the API error that ended
// the run (mod 256) or one of its own fatal codes; never from the model's text or the tail.

/** gemini's own exit codes for set-up failures (ExitCodes in 0.61.0). */
const EXIT_CLASS: Record<number, Classified['cls']> = { 41: 'fatal_auth', 52: 'fatal_config' };
/** HTTP statuses as gemini exits with them (process exit codes are mod 256). */
const EXIT_STATUS: Record<number, number> = { 145: 401, 147: 403, 173: 429, 244: 500, 246: 502, 247: 503, 248: 504 };
/** The Google API's status names, as gemini's message gives them beside the error text. */
const STATUS_NAMES: Record<string, number> = {
  UNAUTHENTICATED: 401,
  PERMISSION_DENIED: 403,
  RESOURCE_EXHAUSTED: 429,
  INTERNAL: 500,
  UNAVAILABLE: 503,
  DEADLINE_EXCEEDED: 504,
};

/** The HTTP status of gemini's `[API Error: …]` message: the API's error object, or its status name. */
export function apiStatusOf(message: string | undefined): number | undefined {
  const m = /^\[API Error: ([\s\S]*)\]/.exec(message ?? '');
  if (!m) return undefined;
  const body = m[1]!.slice(0, m[1]!.lastIndexOf('}') + 1);
  try {
    const code = (JSON.parse(body) as { error?: { code?: unknown } }).error?.code;
    if (typeof code === 'number') return code;
  } catch {
    /* not the API's JSON: look for the status name */
  }
  return STATUS_NAMES[/\(Status: ([A-Z_]+)\)\]/.exec(message ?? '')?.[1] ?? ''];
}

/**
 * A spent quota, as gemini words it after reading the API's QuotaFailure and RetryInfo details: a
 * daily quota (no reset given), or a wait longer than it retries for ("Suggested retry after 3600s.").
 */
export function quotaOf(message: string | undefined, at: number): { resetAt?: string } | undefined {
  const text = /^\[API Error: ([\s\S]*)\]/.exec(message ?? '')?.[1];
  if (!text) return undefined;
  if (/^You have exhausted your daily quota on this model\.$/.test(text)) return {};
  const delay = /\nSuggested retry after ([\d.]+)s\.$/.exec(text)?.[1];
  return delay ? { resetAt: new Date(at + Number(delay) * 1000).toISOString() } : undefined;
}

export const gemini: Adapter = {
  argv(spec, input) {
    const mode = input.mode === 'ask' ? 'plan' : (spec.permissionMode ?? 'auto_edit');
    return [
      ...spec.command,
      '-p',
      input.prompt,
      '--output-format',
      'stream-json',
      '--skip-trust',
      '--approval-mode',
      mode,
      ...(input.model ? ['-m', input.model] : []),
      ...(input.sessionId ? ['--resume', input.sessionId] : []),
    ];
  },

  env(input): Record<string, string> {
    if (!input.mcp) return {};
    let home: string | undefined;
    try {
      home = geminiHome(runHomeDir(input.mcp), input.mcp, env());
    } catch {
      // A home that cannot be built (a read-only ~/.gemini): the run goes on in the user's own, without lazy's tools.
    }
    return home ? { GEMINI_CLI_HOME: home } : {};
  },

  events(line) {
    const j = jsonLine(line);
    return j ? geminiEvents(j) : [{ kind: 'raw', line }];
  },

  parseLine(line, state) {
    const j = jsonLine(line);
    if (!j) return 'progress';
    if (j.type === 'init' && typeof j.session_id === 'string') state.sessionId = j.session_id;
    if (j.type === 'tool_use' || j.type === 'tool_result') collectCommands(state, geminiEvents(j));
    // The result is what the model said after its last tool call; its text arrives in deltas.
    if (j.type === 'tool_use') delete state.result;
    if (j.type === 'message' && j.role === 'assistant' && typeof j.content === 'string')
      state.result = (j.delta === true ? (state.result ?? '') : '') + j.content;
    if (j.type === 'result') {
      state.isError = j.status !== 'success';
      if (state.isError) {
        state.errorText = String(j.error?.message ?? 'the turn failed');
        if (typeof j.error?.type === 'string') state.errorType = j.error.type;
        const status = apiStatusOf(state.errorText);
        if (status) state.apiStatus = status;
      }
      const s = j.stats;
      if (s && typeof s === 'object') {
        const cached = typeof s.cached === 'number' ? s.cached : 0;
        const input = typeof s.input === 'number' ? s.input : (s.input_tokens ?? 0) - cached;
        state.usage = usageOf({ input_tokens: input, output_tokens: s.output_tokens, cache_read_input_tokens: cached });
      }
    }
    return 'progress';
  },

  classify(x): Classified {
    const { state } = x;
    const said = state.isError ? state.errorText : undefined;
    const reason = oneLine(said, exitReason(x));
    const status = state.apiStatus ?? (state.isError ? EXIT_STATUS[x.exitCode ?? -1] : undefined);
    const quota = status === 429 ? quotaOf(said, now()) : undefined;
    if (quota) return { cls: 'usage_limit', reason, ...quota };
    const cls = classOfStatus(status) ?? EXIT_CLASS[x.exitCode ?? -1];
    return cls ? { cls, reason } : unknownFailure(x, said);
  },

  // Printed on stderr before any event when --resume names a session its project folder does not hold (exit 42).
  sessionMissing({ state, tail }) {
    return !state.sessionId && /^Error resuming session: Invalid session identifier /m.test(tail);
  },

  resultText(state) {
    return state.result?.trim() || undefined;
  },
};
