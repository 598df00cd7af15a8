import type { WorkEvent, WorkEventKind, WorkResult } from '../ops/work/index.js';
import { sanitizeLine } from '../core/sanitize.js';

// lazy work's output: one line per event as it happens, then a summary.

export function renderWorkEvent(kind: WorkEventKind, e: WorkEvent): string {
  const run = e.run ? ` (run ${e.run})` : '';
  if (kind === 'lost') return `${sanitizeLine(e.detail)}${run}\n`;
  return `${kind} ${e.task}${run}: ${sanitizeLine(e.detail)}\n`;
}

export function renderWork(r: WorkResult): string {
  const stop = r.stopped_by ? ` (stopped by ${r.stopped_by})` : '';
  return (
    `work on ${r.remote} as ${sanitizeLine(r.host)}${stop}: ${r.claimed.length} claimed, ${r.finished.length} finished, ` +
    `${r.lost.length} lost, ${r.released.length} released` +
    r.waiting.map((w) => `\n  ${w.task} waits: ${sanitizeLine(w.detail)}`).join('')
  );
}

/** 5 when a claim was lost (another worker took it over), else 0. */
export const workExit = (r: WorkResult) => (r.lost.length ? 5 : 0);
