import { closeSync, openSync, readSync, statSync } from 'node:fs';
import type { TaskView } from '../model/fold.js';
import { LOG_TAIL_BYTES, runDir, runFiles } from '../agents/runs.js';
import { inProgress, waitFor } from './wait.js';
import type { App } from './app.js';

/**
 * Streams the output of the task's running turn as it is written, following an
 * auto-resumed run onto its successor, until the task leaves working.
 */
export async function followTask(
  app: App,
  id: string,
  write: (s: string) => void,
  stop = () => false,
): Promise<TaskView> {
  let run: string | null = null;
  let offset = 0;
  const drain = () => {
    if (!run) return;
    const path = runFiles(runDir(app.repo.lazyDir, run)).log;
    let size = 0;
    try {
      size = statSync(path).size;
    } catch {
      return;
    }
    if (size < offset) offset = 0; // the supervisor rotated the log
    if (size <= offset) return;
    // Joining a run late shows its tail, and one tick reads a bounded slice (the rest follows on the next).
    if (offset === 0 && size > LOG_TAIL_BYTES) offset = size - LOG_TAIL_BYTES;
    const fd = openSync(path, 'r');
    try {
      const buf = Buffer.alloc(Math.min(size - offset, 4 * 1024 * 1024));
      const n = readSync(fd, buf, 0, buf.length, offset);
      offset += n;
      write(buf.subarray(0, n).toString('utf8'));
    } finally {
      closeSync(fd);
    }
  };
  return waitFor(app, id, {
    until: (v) => stop() || !inProgress(app, v),
    onTick: (v) => {
      drain();
      if (v.current_run && v.current_run !== run) {
        if (run) write(`\n[lazy] following run ${v.current_run}\n`);
        run = v.current_run;
        offset = 0;
        drain();
      }
    },
  }).finally(drain);
}
