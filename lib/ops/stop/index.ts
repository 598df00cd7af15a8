import { writeFileSync } from 'node:fs';
import { notAllowed } from '../../core/errors.js';
import { thisHost } from '../../core/proc.js';
import { madeHere, placeName, placeOf } from '../../core/place.js';
import { assertAllowed } from '../../model/table.js';
import { situatedActions } from '../../model/situation.js';
import { lastChange, type TaskView } from '../../model/fold.js';
import { readAgentIdentity, readRun, runDir, runFiles } from '../../agents/runs.js';
import { terminateVerified, type Terminated } from '../../agents/supervisor/kill.js';
import { allowedTaskArg } from '../resolve.js';
import type { App } from '../app.js';
import { nowIso } from '../../core/clock.js';
import { isRound } from '../../model/rounds.js';

export interface Stopped extends Terminated {
  task: TaskView;
  /** --force broke a claim held elsewhere: the remote's lease it deleted (null when there was none). */
  broken?: { remote: string | null; lease: string | null };
  /** A stopped ask: the task went back to its status before the ask; `set_aside` says where what it left went. */
  ask?: { set_aside: string | null };
  /** A stopped follow-up or repair ("follow-up 2"): the task went back to the status it came from. */
  round?: string;
}

/**
 * Marks the task user-stopped (interrupted, never auto-resumed), then SIGTERMs the
 * agent's process group and SIGKILLs it after the grace period. Only a verified agent
 * process is signalled. A stopped ask is not interrupted: the task returns to where it was.
 */
export async function stopTask(app: App, idArg: string, o: { force?: boolean } = {}): Promise<Stopped> {
  const { id, view } = await allowedTaskArg(app, idArg, 'stop');
  const run = view.current_run ? readRun(app.repo.lazyDir, view.current_run) : undefined;
  const last = lastChange(view);
  const here = placeOf(app.repo);
  // A turn of another clone (on this machine or another) is that clone's to stop; --force breaks its claim,
  // and so it does for a turn of this clone whose run is gone while the remote still holds its lease.
  if (!run && ((last?.host && !madeHere(last, here)) || o.force)) {
    if (!o.force && last?.host) {
      const where = placeName(last, here);
      throw notAllowed(
        'stop',
        view.status,
        situatedActions(view, { elsewhere: true }),
        `task ${id} is running on ${where}; stop it there, or break its claim with lazy stop ${id} --force`,
        { host: last.host },
      );
    }
    const { breakClaim } = await import('./force.js');
    const b = await breakClaim(app, id, view.current_run);
    return { task: b.task, signal: 'none', waited_ms: 0, broken: { remote: b.remote, lease: b.lease } };
  }
  const end = run ? async () => terminate(app.repo.lazyDir, run.id, await grace(app)) : null;
  if (last?.trigger === 'ask' && (last.from === 'blocked' || last.from === 'conflict')) {
    const { stopAsk } = await import('./ask.js');
    return stopAsk(app, id, { from: last.from, run: view.current_run, end });
  }
  if (last && isRound(last.trigger) && last.from) {
    const { stopRound } = await import('./ask.js');
    return stopRound(app, id, { from: last.from, run: view.current_run, end });
  }
  const { view: task } = await app.store.mutate(id, 'stop', (d) => {
    assertAllowed('stop', d.view);
    d.transition('interrupted', 'stop', 'stopped by the user', {
      ...(run ? { run: run.id } : {}),
      host: thisHost(),
      details: { user_stopped: true },
    });
  });
  if (!run) return { task, signal: 'none', waited_ms: 0 };
  return { task, ...(await terminate(app.repo.lazyDir, run.id, await grace(app))) };
}

const grace = async (app: App) => (await app.config()).stop_grace_ms ?? 10_000;

async function terminate(lazyDir: string, runId: string, graceMs: number): Promise<Terminated> {
  // The stop file tells the supervisor the exit is ours (and not to start another attempt).
  return terminateVerified(readAgentIdentity(lazyDir, runId), graceMs, () =>
    writeFileSync(runFiles(runDir(lazyDir, runId)).stop, nowIso()),
  );
}
