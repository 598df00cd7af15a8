import type { Adapter } from './adapter.js';
import { jsonLine, commonClassify } from './adapter.js';
import type { Classified } from './taxonomy.js';

// Claude Code headless: `claude -p <prompt> --output-format stream-json --verbose`,
// later turns with `--resume <session_id>`. Its result line says `subtype: success`
// even for failures; `is_error` is the truth (recorded fixtures, claude 2.1.197).

export const claude: Adapter = {
  argv(spec, input) {
    const mode = input.mode === 'ask' ? 'plan' : spec.permissionMode ?? 'acceptEdits';
    return [
      ...spec.command, '-p', input.prompt, '--output-format', 'stream-json', '--verbose',
      '--permission-mode', mode,
      ...(input.sessionId ? ['--resume', input.sessionId] : []),
    ];
  },

  parseLine(line, state) {
    const j = jsonLine(line);
    if (!j) return 'progress';
    if (typeof j.session_id === 'string' && (j.type === 'system' || !state.sessionId)) state.sessionId = j.session_id;
    if (j.type === 'system' && j.subtype === 'api_retry') {
      state.retry = { message: `API retry ${j.attempt}/${j.max_retries}: ${j.error ?? 'error'}${j.error_status ? ` (${j.error_status})` : ''}`, count: (state.retry?.count ?? 0) + 1 };
      return 'retry';
    }
    if (j.type === 'result') {
      state.isError = j.is_error === true;
      if (typeof j.result === 'string') state.result = j.result;
      if (Array.isArray(j.errors)) state.errorText = j.errors.join('\n');
      if (typeof j.api_error_status === 'number') state.apiStatus = j.api_error_status;
      if (j.usage && typeof j.usage === 'object') state.usage = j.usage;
      if (typeof j.total_cost_usd === 'number') state.costUsd = j.total_cost_usd;
    }
    return 'progress';
  },

  classify({ state, tail, exitCode, signal }): Classified {
    const text = [state.result, state.errorText, state.retry?.message, tail].filter(Boolean).join('\n');
    if (state.apiStatus === 401 || state.apiStatus === 403) return { cls: 'fatal_auth', reason: state.result ?? `HTTP ${state.apiStatus}` };
    if (state.apiStatus === 429 || state.apiStatus === 529) return { cls: 'transient_overload', reason: state.result ?? `HTTP ${state.apiStatus}` };
    return commonClassify(text, signal ? `killed by ${signal}` : `exit ${exitCode}`);
  },

  sessionMissing({ state, tail }) {
    return /no conversation found with session id/i.test(`${state.errorText ?? ''}\n${tail}`);
  },

  resultText(state) {
    return state.result;
  },
};
