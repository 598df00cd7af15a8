import { liveness, type ProcIdentity } from '../core/proc.js';

// Ending a process lazy does not hold as a child (an orphaned agent, or one `lazy stop`
// targets): only when its identity is verified, then its whole process group, SIGTERM
// first and SIGKILL after the grace period.

export interface Terminated { signal: 'none' | 'SIGTERM' | 'SIGKILL'; waited_ms: number }

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `beforeSignal` runs once the identity is checked and before the first signal. */
export async function terminateVerified(id: ProcIdentity | undefined, graceMs: number, beforeSignal?: () => void): Promise<Terminated> {
  const alive = !!id && liveness(id) === 'alive';
  beforeSignal?.();
  if (!alive) return { signal: 'none', waited_ms: 0 };
  const group = (sig: NodeJS.Signals) => { try { process.kill(-id.pid, sig); } catch { try { process.kill(id.pid, sig); } catch { /* gone */ } } };
  const started = Date.now();
  group('SIGTERM');
  while (Date.now() - started < graceMs) {
    if (liveness(id) !== 'alive') return { signal: 'SIGTERM', waited_ms: Date.now() - started };
    await sleep(50);
  }
  if (liveness(id) === 'alive') group('SIGKILL');
  for (let i = 0; i < 100 && liveness(id) === 'alive'; i++) await sleep(50);
  return { signal: 'SIGKILL', waited_ms: Date.now() - started };
}
