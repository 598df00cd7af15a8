import type { StreamEvent } from '../adapter.js';
import { lastLine } from '../text.js';

// Gemini CLI's `--output-format stream-json` (0.61.0 fixtures): one JSON object a line,
// `init` (session_id, model), `message` (the user's prompt, then the model's text in deltas),
// `tool_use` (tool_name, tool_id, parameters), `tool_result` (tool_id, status success|error,
// output, error {type, message}), `error` (a warning or error the CLI reports mid-turn) and a
// last `result` (status, error {type, message}, stats).

/** The parameter that names what a tool call works on, by gemini's tool names (others show their parameters). */
const TOOL_DETAIL: Record<string, string> = {
  run_shell_command: 'command',
  write_file: 'file_path',
  replace: 'file_path',
  read_file: 'file_path',
  read_many_files: 'include',
  list_directory: 'dir_path',
  glob: 'pattern',
  grep_search: 'pattern',
  search_file_content: 'pattern',
  web_fetch: 'prompt',
  google_web_search: 'query',
  save_memory: 'fact',
};

export const SHELL_TOOL = 'run_shell_command';

/** What a tool call works on: its command, file or pattern, else its parameters as compact JSON. */
export function toolDetail(name: string, params: unknown): string {
  const field = (params ?? {}) as Record<string, unknown>;
  const named = field[TOOL_DETAIL[name] ?? ''];
  if (typeof named === 'string') return named;
  const json = JSON.stringify(params ?? {});
  return json === '{}' ? '' : json;
}

/**
 * The exit code a shell result states: gemini shows a failed command's output, and only when there
 * is none its fixed "Command exited with code: N"; a status of success says nothing of the exit code.
 */
export const statedExit = (output: unknown) =>
  typeof output === 'string' ? Number(/^Command exited with code: (\d+)$/.exec(output.trim())?.[1] ?? NaN) : NaN;

function toolResult(j: Record<string, any>): StreamEvent {
  const id = typeof j.tool_id === 'string' ? { id: j.tool_id } : {};
  const ok = j.status === 'success';
  const code = statedExit(j.output);
  const exit = Number.isNaN(code) ? {} : { exit_code: code };
  // The statement of the exit code is all the output says: the exit code shows it.
  const text = !Number.isNaN(code)
    ? ''
    : ok
      ? lastLine(j.output)
      : lastLine(j.error?.message) || lastLine(j.output) || 'failed';
  return { kind: 'result', ...id, ok: ok && !(code > 0), ...exit, text };
}

function endEvent(j: Record<string, any>): StreamEvent {
  if (j.status !== 'success') return { kind: 'end', ok: false, text: String(j.error?.message ?? 'the turn failed') };
  const s = j.stats ?? {};
  const calls = typeof s.tool_calls === 'number' ? `${s.tool_calls} tool call${s.tool_calls === 1 ? '' : 's'}` : '';
  const tokens = typeof s.input_tokens === 'number' ? `${s.input_tokens} in / ${s.output_tokens ?? 0} out tokens` : '';
  return { kind: 'end', ok: true, text: [calls, tokens].filter(Boolean).join(', ') || 'done' };
}

/** One line of gemini's stream-json as events; the parser parseLine and the follow view share. */
export function geminiEvents(j: Record<string, any>): StreamEvent[] {
  if (j.type === 'init')
    return [{ kind: 'note', text: `gemini session ${j.session_id ?? '?'}${j.model ? ` (${j.model})` : ''}` }];
  if (j.type === 'message' && j.role === 'assistant' && typeof j.content === 'string' && j.content.trim())
    return [{ kind: 'text', text: j.content }];
  if (j.type === 'tool_use' && typeof j.tool_name === 'string')
    return [
      {
        kind: 'tool',
        ...(typeof j.tool_id === 'string' ? { id: j.tool_id } : {}),
        name: j.tool_name,
        detail: toolDetail(j.tool_name, j.parameters),
        ...(j.tool_name === SHELL_TOOL ? { shell: true } : {}),
      },
    ];
  if (j.type === 'tool_result') return [toolResult(j)];
  if (j.type === 'error' && typeof j.message === 'string')
    return [{ kind: j.severity === 'warning' ? 'note' : 'error', text: j.message }];
  if (j.type === 'result') return [endEvent(j)];
  return [];
}
