import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { placeOf } from '../../core/place.js';
import { liveness, thisHost, type ProcIdentity } from '../../core/proc.js';
import { EXIT, LazyError } from '../../core/errors.js';
import { willAutoResume } from '../../reconcile/reconcile.js';
import { runGone } from '../../reconcile/dead-run.js';
import type { TaskView } from '../../model/fold.js';
import { parkStatus } from '../../model/park.js';
import { readRun } from '../../agents/runs.js';
import { activeDir, clearActive, listActive, readActive, type ActiveMarker } from '../../store/markers.js';
import { HELD, type Pass } from './pass.js';

// Active markers (.git/lazy/active) are reconcile's work list. Doctor runs after its own
// command's reconcile, so a marker still here with no live process of its run is one
// nothing will ever finish: every later command would carry it (and warn about it)
// forever, and `wait` would wait on it.

/**
 * Gone for good: dead here, or recorded under another host name with no boot to compare (markers
 * are this clone's, so that was this machine under an old name).
 */
const gone = (p: ProcIdentity | null | undefined) => {
  const l = p ? liveness(p) : 'dead';
  return l === 'dead' || (l === 'unknown' && p!.host !== thisHost());
};

/** Why nothing will ever finish this marker, or null while something still may. */
export function deadMarkerReason(lazyDir: string, m: ActiveMarker, v: TaskView | undefined): string | null {
  if (!v) return `its task ${m.task} does not exist here`;
  const rec = m.kind === 'turn' ? readRun(lazyDir, m.run) : undefined;
  // The judgement every command's reconcile makes (lib/reconcile/dead-run.ts), by doctor's standard of proof.
  if (m.kind === 'turn' ? !runGone(m, rec, gone) : !gone(m.owner)) return null; // a live process will finish it
  const state = `the task is ${v.status}`;
  if (m.kind === 'turn') {
    if (!rec) return `the record of its run ${m.run} is gone and no process of the run is alive`;
    if (v.current_run === m.run && willAutoResume(v, placeOf({ lazyDir }))) return null; // a crash the next command resumes
    if (v.status !== 'working' || v.current_run !== m.run) {
      const other = v.current_run ? `run ${v.current_run}` : 'no run';
      return `${state}${v.current_run !== m.run ? ` with ${other}` : ''}, and no process of run ${m.run} is alive`;
    }
    const host = m.owner.host !== thisHost() ? ` (it ran under the host name ${m.owner.host})` : '';
    return (
      `${state} with run ${m.run}, but no process of that run is alive here${host} ` +
      `and reconcile could not record it`
    );
  }
  if (m.kind === 'pair')
    return `${state}${v.status === 'pairing' ? ', but its pairing process is gone' : ': its pairing is over'}`;
  // A stranded accept is reported as `merging`; the marker is what lets reconcile finish it.
  return v.status === 'merging' || v.status === 'zombie' ? null : `${state}: its accept is over`;
}

/** Reports (and with --fix clears) markers nothing will finish; a turn or pairing they held open is ended first. */
export async function repairDeadMarkers(p: Pass, views: TaskView[], damaged: Set<string>): Promise<void> {
  const { lazyDir } = p.app.repo;
  const byId = new Map(views.map((v) => [v.id, v]));
  for (const m of listActive(lazyDir)) {
    // Its ref is reported (and restored) on its own; reconcile then finishes the marker.
    if (damaged.has(m.task)) continue;
    // A ref doctor just restored is not in the views it read before.
    const v =
      byId.get(m.task) ??
      (await p.app.store.view(m.task).catch((e: unknown) => {
        if (e instanceof LazyError && e.exitCode === EXIT.notFound) return undefined;
        throw e;
      }));
    const why = deadMarkerReason(lazyDir, m, v);
    if (!why) continue;
    const what = `${m.kind} marker of task ${m.task} (run ${m.run})`;
    if (p.fix) {
      if (v) await endHeldOpen(p, m, why);
      clearActive(lazyDir, m.task, m.run);
      p.fixed.push(`cleared the ${what}: ${why}`);
      continue;
    }
    p.findings.push({
      level: 'error',
      code: 'dead_marker',
      message: `the ${what} will never finish: ${why}; lazy doctor --fix clears it`,
      details: { task: m.task, run: m.run, kind: m.kind, reason: why },
    });
  }
  for (const name of unreadableMarkers(lazyDir)) {
    if (p.fix) {
      rmSync(join(activeDir(lazyDir), name), { force: true });
      p.fixed.push(`removed the unreadable active marker ${name}`);
      continue;
    }
    p.findings.push({
      level: 'error',
      code: 'dead_marker',
      message: `the active marker ${name} cannot be read; lazy doctor --fix removes it`,
      details: { file: join(activeDir(lazyDir), name) },
    });
  }
}

/** A task still working or pairing on the dead run moves on, as reconcile would have moved it. */
async function endHeldOpen(p: Pass, m: ActiveMarker, why: string): Promise<void> {
  await p.app.store.mutate(
    m.task,
    'doctor',
    (d) => {
      if (m.kind === 'turn' && d.status === 'working' && d.view.current_run === m.run) {
        d.transition(
          'interrupted',
          'turn_crashed',
          `${why}; marked interrupted by lazy doctor`,
          { run: m.run, details: { held: HELD } },
          'system',
        );
      } else if (m.kind === 'pair' && d.status === 'pairing') {
        d.transition(parkStatus(d.preview()), 'stale_pairing', `stale pairing: ${why}`, {}, 'system');
      }
    },
    { actor: 'system' },
  );
}

function unreadableMarkers(lazyDir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(activeDir(lazyDir)).filter((n) => n.endsWith('.json'));
  } catch {
    return [];
  }
  return names.filter((n) => !readActive(lazyDir, n.slice(0, -'.json'.length)));
}
