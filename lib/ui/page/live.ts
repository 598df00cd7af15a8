import { taskPath } from './api.js';
import { after, cancel, hear } from './clock.js';
import { h, refreshTimes } from './dom.js';

// The two streams: /api/events says something changed (the page re-fetches what it shows), and a working task's
// /output carries the readable lines `lazy show --follow` prints. EventSource reconnects by itself after a drop.

/** Calls `onChange` (at most once per 150 ms burst) whenever the server reports a change; returns a stop. */
export function watchChanges(onChange: () => void): () => void {
  let timer: number | undefined;
  let source: EventSource | null = null;
  let retry: number | undefined;
  const fire = () => {
    cancel(timer);
    timer = after(150, onChange);
  };
  const open = () => {
    source = new EventSource('/api/events');
    source.addEventListener('change', (e) => {
      hear(atOf(e));
      fire();
    });
    // The server's time, every 30 s: the relative times ("3 min ago") move on with it.
    source.addEventListener('time', (e) => {
      hear(atOf(e));
      refreshTimes();
    });
    // A refused stream (an HTTP error) is closed for good by the browser: open a new one after a pause, and
    // re-fetch then, since changes made while it was down were never announced.
    source.addEventListener('error', () => {
      if (source?.readyState !== EventSource.CLOSED) return;
      retry = after(2000, () => (open(), fire()));
    });
  };
  open();
  return () => {
    cancel(timer);
    cancel(retry);
    source?.close();
  };
}

const MAX_LINES = 5000;

export interface OutputPanel {
  el: HTMLElement;
  task: string;
  close(): void;
}

/** The live output of a working task; `onEnd` runs when the task leaves working (the stream's end event). */
export function outputPanel(task: string, onEnd: () => void): OutputPanel {
  const log = h('pre', { class: 'output', tabindex: 0, 'aria-label': 'Agent output' });
  const state = h('p', { class: 'output-state', role: 'status' }, 'Connecting…');
  const el = h('div', { class: 'output-panel' }, state, log);
  const source = new EventSource(taskPath(task, '/output'));
  // Each connection replays the run's output from its start, as --follow does, so a reconnect starts afresh.
  source.addEventListener('open', () => {
    log.replaceChildren();
    state.textContent = 'Following the agent’s output.';
  });
  source.addEventListener('line', (e) => {
    const text = parseField((e as MessageEvent<string>).data, 'text');
    if (text === null) return;
    const atBottom = log.scrollTop + log.clientHeight >= log.scrollHeight - 8;
    log.append(text.endsWith('\n') ? text : `${text}\n`);
    while (log.childNodes.length > MAX_LINES) log.firstChild?.remove();
    if (atBottom) log.scrollTop = log.scrollHeight;
  });
  source.addEventListener('end', (e) => {
    source.close();
    const status = parseField((e as MessageEvent<string>).data, 'status');
    state.textContent = status ? `The turn ended: the task is ${status}.` : 'The turn ended.';
    onEnd();
  });
  // The server could not follow the task (gone, unreadable): it said why and ended; reconnecting would not help.
  source.addEventListener('failure', (e) => {
    source.close();
    const data = (e as MessageEvent<string>).data;
    let message = 'The output stream failed.';
    try {
      message = (JSON.parse(data) as { error?: { message?: string } }).error?.message ?? message;
    } catch {
      /* not JSON: keep the plain words */
    }
    state.textContent = message;
  });
  source.addEventListener('error', () => {
    if (source.readyState === EventSource.CLOSED) state.textContent = 'The output stream was refused.';
    else state.textContent = 'Reconnecting…';
  });
  return { el, task, close: () => source.close() };
}

/** An event's `at`: the serving command's time when it was sent. */
function atOf(e: Event): unknown {
  try {
    return (JSON.parse((e as MessageEvent<string>).data) as { at?: unknown }).at;
  } catch {
    return undefined;
  }
}

function parseField(data: string, field: string): string | null {
  try {
    const v = (JSON.parse(data) as Record<string, unknown>)[field];
    return typeof v === 'string' ? v : null;
  } catch {
    return null;
  }
}
