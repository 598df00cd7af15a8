import type { Adapter } from './adapter.js';
import { jsonLine, commonClassify } from './adapter.js';
import type { Classified } from './taxonomy.js';

// OpenAI Codex: `codex exec --json <prompt>` with stdin closed (it waits on an open
// stdin), resumed as `codex exec resume --json <thread_id> <prompt>`. exec resume has no
// -s option, so the sandbox is set with -c for both forms (codex-cli 0.171.0 fixtures).

export const codex: Adapter = {
  argv(spec, input) {
    const sandbox = input.mode === 'ask' ? 'read-only' : spec.permissionMode ?? 'workspace-write';
    const opts = ['--json', '-c', `sandbox_mode="${sandbox}"`];
    // '--' ends the options: neither a session id nor a prompt is ever read as a flag.
    return input.sessionId
      ? [...spec.command, 'exec', 'resume', ...opts, '--', input.sessionId, input.prompt]
      : [...spec.command, 'exec', ...opts, '--', input.prompt];
  },

  parseLine(line, state) {
    const j = jsonLine(line);
    if (!j) return 'progress';
    if (j.type === 'thread.started' && typeof j.thread_id === 'string') state.sessionId = j.thread_id;
    else if (j.type === 'item.completed' && j.item?.type === 'agent_message' && typeof j.item.text === 'string') state.result = j.item.text;
    else if (j.type === 'turn.completed') {
      state.isError = false;
      if (j.usage && typeof j.usage === 'object') state.usage = j.usage;
    } else if (j.type === 'turn.failed') {
      state.isError = true;
      state.errorText = String(j.error?.message ?? 'turn failed');
    } else if (j.type === 'error' && typeof j.message === 'string') {
      state.retry = { message: j.message, count: (state.retry?.count ?? 0) + 1 };
      return /reconnecting/i.test(j.message) ? 'retry' : 'progress';
    }
    return 'progress';
  },

  classify({ state, tail, exitCode, signal }): Classified {
    const text = [state.errorText, state.retry?.message, tail].filter(Boolean).join('\n');
    if (/not inside a trusted directory|codex_home points to/i.test(text)) return { cls: 'fatal_config', reason: text.split('\n').find((l) => /trusted|codex_home/i.test(l))!.trim() };
    return commonClassify(text, signal ? `killed by ${signal}` : `exit ${exitCode}`);
  },

  sessionMissing({ tail, state }) {
    return /no rollout found for thread id/i.test(`${state.errorText ?? ''}\n${tail}`);
  },

  resultText(state) {
    return state.result;
  },
};
