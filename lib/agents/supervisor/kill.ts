import {
  environHas,
  groupMembers,
  liveness,
  sameSpace,
  sessionCarrying,
  signalGroup,
  signalProcess,
  type ProcIdentity,
} from '../../core/proc.js';
import { now, pollUntil } from '../../core/clock.js';
import { env } from '../../core/env.js';

// Ending an agent's processes. The agent runs as the leader of its own process group, and
// everything it starts stays in that group unless it escapes on purpose; so a turn ends
// by signalling the whole group, SIGTERM first and SIGKILL after the grace period.

export interface Terminated {
  signal: 'none' | 'SIGTERM' | 'SIGKILL';
  waited_ms: number;
}

/** What agent.json records: the leader's identity and the run its processes carry as LAZY_RUN. */
export interface AgentIdentity extends ProcIdentity {
  run?: string;
}

/**
 * SIGTERM to group `pgid`, SIGKILL once `graceMs` pass with any member left; then waits
 * (up to 5 s more) for the group to be gone. 'none' when nothing was running. Zombies do
 * not count: whoever inherits them may reap them late.
 */
export async function endGroup(
  pgid: number,
  graceMs: number,
  alive = () => groupMembers(pgid).length > 0,
): Promise<Terminated> {
  if (!alive()) return { signal: 'none', waited_ms: 0 };
  const started = now();
  const gone = () => !alive();
  signalGroup(pgid, 'SIGTERM');
  // A group that went during the last poll was ended by SIGTERM: SIGKILL is reported only when it was sent.
  if (await pollUntil(gone, graceMs, 50)) return { signal: 'SIGTERM', waited_ms: now() - started };
  signalGroup(pgid, 'SIGKILL');
  await pollUntil(gone, 5000, 50);
  return { signal: 'SIGKILL', waited_ms: now() - started };
}

/**
 * Invariant: only a verified group is signalled. It is ours while its leader's identity
 * holds, or, once the leader is gone, while a member that started after the leader
 * carries the run's LAZY_RUN (a group id cannot be reused while any member lives).
 */
export function ownsGroup(id: AgentIdentity): boolean {
  if (liveness(id) === 'alive') return true;
  if (!id.run || id.start_ticks === null || !sameSpace(id)) return false;
  return groupMembers(id.pid).some((p) => p.start >= id.start_ticks! && environHas(p.pid, `LAZY_RUN=${id.run}`));
}

/**
 * Ends a process group lazy does not hold as a child (`lazy stop`, an orphan
 * found by reconcile). `beforeSignal` runs once the identity is checked.
 */
export async function terminateVerified(
  id: AgentIdentity | undefined,
  graceMs: number,
  beforeSignal?: () => void,
): Promise<Terminated> {
  const ours = !!id && ownsGroup(id);
  beforeSignal?.();
  if (!ours) return { signal: 'none', waited_ms: 0 };
  return endGroup(id.pid, graceMs, () => liveness(id) === 'alive' || groupMembers(id.pid).length > 0);
}

/** A `lazy pair` process, the terminal session it ran in, and the run its pairing command carries as LAZY_PAIR_RUN. */
export interface PairingSession {
  owner: ProcIdentity;
  sid: number;
  run: string;
}

/**
 * Ends what a dead `lazy pair` started: its interactive command stays in the terminal's session and group
 * (a group of its own would take the terminal from it), so its processes are found one by one.
 * Invariant: only a verified process is signalled: in that session, started after `lazy pair`, carrying its run.
 */
export async function endPairing(s: PairingSession, graceMs: number): Promise<Terminated & { pids: number[] }> {
  const start = s.owner.start_ticks;
  // A command run from inside that very session (its shell outlived `lazy pair`) does not end its own shell.
  if (start === null || !sameSpace(s.owner) || env().LAZY_PAIR_RUN === s.run)
    return { signal: 'none', waited_ms: 0, pids: [] };
  const members = () => sessionCarrying(s.sid, start, `LAZY_PAIR_RUN=${s.run}`);
  const pids = members();
  if (!pids.length) return { signal: 'none', waited_ms: 0, pids };
  const started = now();
  const signal = (sig: NodeJS.Signals) => members().forEach((pid) => signalProcess(pid, sig));
  const gone = () => members().length === 0;
  signal('SIGTERM');
  if (await pollUntil(gone, graceMs, 50)) return { signal: 'SIGTERM', waited_ms: now() - started, pids };
  signal('SIGKILL'); // an interactive shell ignores SIGTERM
  await pollUntil(gone, 5000, 50);
  return { signal: 'SIGKILL', waited_ms: now() - started, pids };
}
