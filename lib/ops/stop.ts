import { writeFileSync } from 'node:fs';
import { notAllowed } from '../core/errors.js';
import { liveness, thisHost } from '../core/proc.js';
import { assertAllowed, availableActions } from '../model/table.js';
import type { TaskView } from '../model/fold.js';
import { readAgentIdentity, readRun, runDir, runFiles } from '../agents/runs.js';
import { taskArg } from './resolve.js';
import type { App } from './app.js';

export interface Stopped { task: TaskView; signal: 'none' | 'SIGTERM' | 'SIGKILL'; waited_ms: number }

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Marks the task user-stopped (interrupted, never auto-resumed), then SIGTERMs the
 * agent's process group and SIGKILLs it after the grace period. Only a verified agent
 * process is signalled.
 */
export async function stopTask(app: App, idArg: string): Promise<Stopped> {
  const { id, view } = await taskArg(app, idArg);
  assertAllowed('stop', view.status);
  const run = view.current_run ? readRun(app.repo.lazyDir, view.current_run) : undefined;
  const host = view.changelog.filter((c) => !c.set_aside).at(-1)?.host;
  if (!run && host && host !== thisHost()) {
    throw notAllowed('stop', view.status, availableActions(view.status), `task ${id} is running on ${host}; stop it there`, { host });
  }
  const { view: task } = await app.store.mutate(id, 'stop', (d) => {
    assertAllowed('stop', d.status);
    d.transition('interrupted', 'stop', 'stopped by the user', { ...(run ? { run: run.id } : {}), host: thisHost(), details: { user_stopped: true } });
  });
  if (!run) return { task, signal: 'none', waited_ms: 0 };
  const grace = (await app.config()).stop_grace_ms ?? 10_000;
  return { task, ...(await terminate(app.repo.lazyDir, run.id, grace)) };
}

async function terminate(lazyDir: string, runId: string, graceMs: number): Promise<Omit<Stopped, 'task'>> {
  const agent = readAgentIdentity(lazyDir, runId);
  const alive = !!agent && liveness(agent) === 'alive';
  const group = (sig: NodeJS.Signals) => { try { process.kill(-agent!.pid, sig); } catch { try { process.kill(agent!.pid, sig); } catch { /* gone */ } } };
  const started = Date.now();
  // Tells the supervisor the exit is ours (and not to start another attempt).
  writeFileSync(runFiles(runDir(lazyDir, runId)).stop, new Date().toISOString());
  if (!alive) return { signal: 'none', waited_ms: 0 };
  group('SIGTERM');
  while (Date.now() - started < graceMs) {
    if (liveness(agent) !== 'alive') return { signal: 'SIGTERM', waited_ms: Date.now() - started };
    await sleep(100);
  }
  if (liveness(agent) === 'alive') group('SIGKILL');
  for (let i = 0; i < 50 && liveness(agent) === 'alive'; i++) await sleep(100);
  return { signal: 'SIGKILL', waited_ms: Date.now() - started };
}
