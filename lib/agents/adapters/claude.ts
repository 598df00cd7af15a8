import type { Adapter } from './adapter.js';
import { usageOf } from '../../model/usage.js';
import { exitReason, jsonLine, unknownFailure, type StreamState } from './adapter.js';
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
    ];
  },

  parseLine(line, state) {
    const j = jsonLine(line);
    if (!j) return 'progress';
    if (typeof j.session_id === 'string' && (j.type === 'system' || !state.sessionId)) state.sessionId = j.session_id;
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
