import { liveness, type ProcIdentity } from '../core/proc.js';

// Killing a process lazy does not own any more (an orphaned agent): only when its
// identity is verified, and then its whole process group, SIGTERM first.

export function killGroupVerified(id: ProcIdentity, graceMs = 2000): boolean {
  if (liveness(id) !== 'alive') return false;
  const signal = (sig: NodeJS.Signals) => {
    try { process.kill(-id.pid, sig); } catch { try { process.kill(id.pid, sig); } catch { /* gone */ } }
  };
  signal('SIGTERM');
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline && liveness(id) === 'alive') Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
  if (liveness(id) === 'alive') signal('SIGKILL');
  return true;
}
