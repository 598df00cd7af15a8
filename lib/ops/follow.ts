import { closeSync, openSync, readSync, statSync } from 'node:fs';
import type { TaskView } from '../model/fold.js';
import { LOG_TAIL_BYTES, readRun, runDir, runFiles } from '../agents/runs.js';
import { ADAPTERS } from '../agents/adapters/registry.js';
import type { Adapter } from '../agents/adapters/adapter.js';
import { inProgress, landed, waitFor } from './wait.js';
import type { App } from './app.js';
import { taskArg } from './resolve.js';

/** Whole lines of a run's log, with the adapter whose dialect they are in (none for lazy's own notes). */
export type FollowWrite = (lines: string, adapter: Adapter | undefined) => void;

export interface FollowOptions {
  /** The reader went away: stop streaming (the turn runs on). */
  stop?: () => boolean;
  /** Give up after this many seconds (wait's timeout error). */
  timeoutS?: number;
}

/** A line longer than this is passed on unfinished (an agent printing without newlines). */
const MAX_PENDING = 1024 * 1024;

/**
 * Streams the output of the task's running turn as it is written, whole lines at a time,
 * following an auto-resumed run onto its successor, until the task leaves working.
 */
export async function followTask(app: App, id: string, write: FollowWrite, o: FollowOptions = {}): Promise<TaskView> {
  const stop = o.stop ?? (() => false);
  let run: string | null = null;
  let adapter: Adapter | undefined;
  let offset = 0;
  let pending = Buffer.alloc(0);
  let skipPartial = false;
  const flush = () => {
    if (pending.length) write(`${pending.toString('utf8')}\n`, adapter);
    pending = Buffer.alloc(0);
  };
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
    // Joining a run late shows its tail from its first whole line, and one tick reads a bounded slice.
    if (offset === 0 && size > LOG_TAIL_BYTES) [offset, skipPartial] = [size - LOG_TAIL_BYTES, true];
    const fd = openSync(path, 'r');
    try {
      const buf = Buffer.alloc(Math.min(size - offset, 4 * 1024 * 1024));
      const n = readSync(fd, buf, 0, buf.length, offset);
      offset += n;
      pending = Buffer.concat([pending, buf.subarray(0, n)]);
    } finally {
      closeSync(fd);
    }
    if (skipPartial) {
      const nl = pending.indexOf(10);
      if (nl < 0) return void (pending = Buffer.alloc(0));
      [pending, skipPartial] = [pending.subarray(nl + 1), false];
    }
    const end = pending.lastIndexOf(10);
    if (end >= 0) {
      write(pending.subarray(0, end + 1).toString('utf8'), adapter);
      pending = pending.subarray(end + 1);
    }
    if (pending.length > MAX_PENDING) flush();
  };
  return waitFor(app, id, {
    timeoutS: o.timeoutS,
    until: (v) => stop() || !inProgress(app, v),
    onTick: (v) => {
      drain();
      if (v.current_run && v.current_run !== run) {
        flush();
        if (run) write(`[lazy] following run ${v.current_run}\n`, undefined);
        run = v.current_run;
        adapter = ADAPTERS[readRun(app.repo.lazyDir, run)?.agent.adapter ?? 'command'];
        [offset, skipPartial] = [0, false];
        drain();
      }
    },
  }).finally(() => {
    drain();
    flush();
  });
}

/** `wait --follow`: the turn's output while it runs, then wait's own verdict on where the task landed. */
export async function followAndWait(app: App, idArg: string, write: FollowWrite, o: FollowOptions = {}) {
  const { id } = await taskArg(app, idArg);
  const v = await followTask(app, id, write, o);
  return o.stop?.() ? v : landed(app, id, v);
}
