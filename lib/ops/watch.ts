import { statSync } from 'node:fs';
import { isActive } from '../model/status.js';
import { refreshIndex } from '../store/listing/index.js';
import { logTail, readRun, runDir, runFiles } from '../agents/runs.js';
import { substateOf, type Substate } from '../agents/substate.js';
import { listActive } from '../store/markers.js';
import { liveness } from '../core/proc.js';
import { reconcileNow, type App } from './app.js';
import type { Schedule } from '../model/schedule.js';
import { lastEvent, type StreamEvent } from '../agents/adapters/adapter.js';
import { ADAPTERS } from '../agents/adapters/registry.js';
import { now } from '../core/clock.js';

export interface WatchRow {
  id: string;
  status: string;
  goal: string;
  /** Where the task stands in the fleet's queue (a usage-limit wait included). */
  schedule: Schedule;
  run: string | null;
  agent: string | null;
  supervisor: 'alive' | 'dead' | 'unknown' | null;
  heartbeat_age_s: number | null;
  last_line: string | null;
  /** What the running turn is doing (its agent's progress line, a wait on a subtask), or null. */
  substate: Substate | null;
  /** The last thing the agent's stream showed, read in its adapter's dialect (see lib/output/stream.ts). */
  last_event: StreamEvent | null;
}

/** One snapshot: tasks in an active status, with what this machine knows of their runs. */
export async function watchSnapshot(app: App): Promise<WatchRow[]> {
  await reconcileNow(app);
  const { rows } = await refreshIndex(app.repo.cwd, app.repo.lazyDir, app.store.reader);
  const markers = new Map(listActive(app.repo.lazyDir).map((m) => [m.task, m]));
  return rows
    .filter((r) => isActive(r.status))
    .map((r) => {
      const runId = r.current_run ?? markers.get(r.id)?.run ?? null;
      const rec = runId ? readRun(app.repo.lazyDir, runId) : undefined;
      const tail = runId ? logTail(app.repo.lazyDir, runId, 20) : [];
      let age: number | null = null;
      if (runId) {
        try {
          age = Math.round((now() - statSync(runFiles(runDir(app.repo.lazyDir, runId)).heartbeat).mtimeMs) / 1000);
        } catch {
          /* not local */
        }
      }
      return {
        id: r.id,
        status: r.status,
        goal: r.goal,
        schedule: r.schedule,
        run: runId,
        agent: rec?.agent.name ?? null,
        supervisor: rec?.supervisor ? liveness(rec.supervisor) : null,
        heartbeat_age_s: age,
        substate: substateOf(app.repo.lazyDir, r),
        last_line: tail.at(-1) ?? null,
        last_event: rec ? lastEvent(ADAPTERS[rec.agent.adapter], tail) : null,
      };
    });
}

/** Redraws every second on a terminal until interrupted (or the terminal goes away). */
export async function watchLoop(
  app: App,
  render: (rows: WatchRow[]) => string,
  intervalMs = 1000,
): Promise<WatchRow[]> {
  for (;;) {
    const rows = await watchSnapshot(app);
    if (!app.io.outOpen()) return rows;
    app.io.out(`\x1b[2J\x1b[H${render(rows)}\n\n(${new Date(now()).toLocaleTimeString()} · Ctrl-C to quit)\n`);
    await app.io.clock.poll(intervalMs);
  }
}
