import { isQuiet, type Adapter, type StreamEvent } from '../agents/adapters/adapter.js';
import { sanitizeLine } from '../core/sanitize.js';
import { truncate } from './format.js';

// The agent's output as a person follows it: assistant text, each tool call with its
// command or file, results with failures marked, retries. The raw stream stays in the run log.

/** A tool result shows one line of what it printed. */
const RESULT_CHARS = 160;

const seconds = (ms: number) => (ms < 10_000 ? Math.round(ms / 100) / 10 : Math.round(ms / 1000));

/** Agent text is shown as written, its control characters escaped (it reaches a terminal). */
const clean = (s: string) =>
  s
    .split('\n')
    .map((l) => sanitizeLine(l.replace(/\r$/, '')))
    .join('\n');

/** The text of one event, or undefined when it shows nothing (an empty successful result). */
export function renderEvent(e: StreamEvent): string | undefined {
  switch (e.kind) {
    case 'raw':
      return e.line;
    case 'text':
      return clean(e.text.trim());
    case 'tool':
      return e.shell
        ? `$ ${clean(e.detail)}`
        : `▸ ${clean(e.name)}${e.detail ? ` ${clean(truncate(e.detail, 300))}` : ''}`;
    case 'result': {
      const text = e.text ? truncate(clean(e.text), RESULT_CHARS) : '';
      if (isQuiet(e)) return undefined;
      if (e.ok) return `  ✓ ${text}`;
      const code = e.exit_code !== undefined ? `exit ${e.exit_code}` : 'failed';
      return `  ✗ ${code}${text ? `: ${text}` : ''}`;
    }
    case 'retry': {
      const n = e.attempt !== undefined ? ` ${e.attempt}${e.max !== undefined ? `/${e.max}` : ''}` : '';
      const wait = e.delayMs !== undefined ? ` in ${seconds(e.delayMs)} s` : '';
      return `⟳ ${clean(e.what)}, ${n || wait ? `retry${n}${wait}` : 'retrying'}`;
    }
    case 'error':
      return `✗ ${clean(e.text)}`;
    case 'note':
      return `· ${clean(e.text)}`;
    case 'end':
      return e.ok ? `✓ turn ended: ${clean(e.text)}` : `✗ turn failed: ${clean(e.text)}`;
  }
}

/** The readable lines for one line of the run log, in the dialect of the run's adapter. */
export function renderLine(adapter: Adapter | undefined, line: string): string[] {
  if (!adapter || line.startsWith('[lazy')) return [line];
  return adapter.events(line).flatMap((e) => renderEvent(e) ?? []);
}

/** The readable form of a stretch of log text (whole lines), one output line each. */
export function renderLog(adapter: Adapter | undefined, text: string): string {
  return text
    .split('\n')
    .flatMap((l, i, all) => (i === all.length - 1 && l === '' ? [] : renderLine(adapter, l)))
    .map((l) => `${l}\n`)
    .join('');
}
