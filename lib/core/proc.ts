import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import { env } from './env.js';

// A process is identified by host, boot, pid and start time, never by pid alone:
// pids are reused, and a kill aimed at a reused pid would hit an innocent process.

export interface ProcIdentity {
  host: string;
  boot_id: string | null;
  pid: number;
  /** Start time in clock ticks since boot (field 22 of /proc/<pid>/stat). */
  start_ticks: number | null;
  /** The pid namespace the pid belongs to (/proc/<pid>/ns/pid): a container's pids mean nothing outside it. */
  pid_ns?: string | null;
}

/** The pid namespace of a process (`pid:[4026531836]`), or null where /proc does not say. */
function pidNs(pid: number | 'self'): string | null {
  try {
    return readlinkSync(`/proc/${pid}/ns/pid`);
  } catch {
    return null;
  }
}
let selfNsCache: string | null | undefined;
const selfNs = () => (selfNsCache === undefined ? (selfNsCache = pidNs('self')) : selfNsCache);

let bootIdCache: string | null | undefined;
export function bootId(): string | null {
  if (bootIdCache === undefined) {
    try {
      bootIdCache = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    } catch {
      bootIdCache = null;
    }
  }
  return bootIdCache;
}

/** The name this machine records on runs; LAZY_HOST overrides it (containers with random hostnames). */
export const thisHost = () => env().LAZY_HOST || hostname();

/** The node binary this process runs on: supervisors and the demo agent start through it. */
export const nodeBinary = () => process.execPath;

/** Signals a whole process group, or the process alone when it leads none. */
export function signalGroup(pgid: number, sig: NodeJS.Signals): void {
  // Invariant: never this process. An identity that names it (a supervisor run in-process) is not an agent's.
  if (pgid === process.pid) throw new Error(`refusing to send ${sig} to this very process (pid ${pgid})`);
  try {
    process.kill(-pgid, sig);
  } catch {
    try {
      process.kill(pgid, sig);
    } catch {
      /* gone */
    }
  }
}

/** State letter, process group and start ticks from /proc/<pid>/stat, or undefined when the pid is gone. */
function procStat(pid: number | 'self'): { state: string; pgrp: number; sid: number; start: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may contain spaces and parentheses; fields resume after the last ')'.
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state: rest[0]!, pgrp: Number(rest[2]), sid: Number(rest[3]), start: Number(rest[19]) };
  } catch {
    return undefined;
  }
}

/** Whether an identity is this very process's. */
export const isThisProcess = (id: ProcIdentity) => id.pid === process.pid && sameSpace(id);

/** This process, as recorded on locks, markers and runs. */
export const selfIdentity = (): ProcIdentity => identityOf(process.pid);

export function identityOf(pid: number): ProcIdentity {
  return { host: thisHost(), boot_id: bootId(), pid, start_ticks: procStat(pid)?.start ?? null, pid_ns: pidNs(pid) };
}

/**
 * Whether an identity's pid and start time mean something here: recorded under this very boot of this kernel, in
 * this pid namespace (a container beside us, or the host around us, shares the boot but not the pids).
 */
export function sameSpace(id: ProcIdentity): boolean {
  const boot = bootId();
  const kernel = boot && id.boot_id ? boot === id.boot_id : id.host === thisHost();
  return kernel && (!id.pid_ns || !selfNs() || id.pid_ns === selfNs());
}

export type Liveness = 'alive' | 'dead' | 'unknown';

/**
 * 'unknown' means this process cannot judge: no /proc to prove identity, another pid namespace (a container
 * beside this one, or the host around it, on the same clone), or another host under another boot. Callers must
 * treat 'unknown' as "leave it alone" (a run's supervisor is then judged by its heartbeat: lib/reconcile/dead-run.ts).
 * Within one kernel and pid namespace the host name plays no part: an identity recorded under an older name
 * (LAZY_HOST changed) is checked by its pid and start time.
 */
export function liveness(id: ProcIdentity): Liveness {
  const boot = bootId();
  if (boot && id.boot_id && boot !== id.boot_id) return id.host === thisHost() ? 'dead' : 'unknown';
  if (!sameSpace(id)) return 'unknown';
  if (id.start_ticks === null || boot === null) {
    try {
      process.kill(id.pid, 0);
      return 'unknown';
    } catch (e) {
      return (e as NodeJS.ErrnoException).code === 'ESRCH' ? 'dead' : 'unknown';
    }
  }
  const st = procStat(id.pid);
  if (!st || st.state === 'Z' || st.state === 'X') return 'dead';
  return st.start === id.start_ticks ? 'alive' : 'dead';
}

/** Every pid in /proc (none where there is no /proc). */
function allPids(): number[] {
  try {
    return readdirSync('/proc')
      .filter((n) => /^\d+$/.test(n))
      .map(Number);
  } catch {
    return [];
  }
}

/** Live (not zombie) processes of process group `pgid`, with their start ticks: one /proc scan. */
export function groupMembers(pgid: number): { pid: number; start: number }[] {
  const out: { pid: number; start: number }[] = [];
  for (const pid of allPids()) {
    const st = procStat(pid);
    if (st && st.pgrp === pgid && st.state !== 'Z' && st.state !== 'X') out.push({ pid, start: st.start });
  }
  return out;
}

/** Processes whose working directory is inside `dir` (a worktree something still runs in). */
export function processesIn(dir: string): number[] {
  return allPids().filter((pid) => {
    try {
      const cwd = readlinkSync(`/proc/${pid}/cwd`);
      return cwd === dir || cwd.startsWith(`${dir}/`);
    } catch {
      return false;
    }
  });
}

/** The session (setsid) this process belongs to: an interactive child started without detaching shares it. */
export const ownSession = (): number | null => procStat('self')?.sid ?? null;

/**
 * Live processes of session `sid` started at or after `since` (clock ticks) that carry `entry` (NAME=value) in their
 * environment: what one command started and its descendants inherited, however they regrouped (a shell's jobs).
 * This process is never among them.
 */
export function sessionCarrying(sid: number, since: number, entry: string): number[] {
  return allPids().filter((pid) => {
    const st = procStat(pid);
    if (pid === process.pid || !st || st.sid !== sid || st.start < since) return false; // never this process
    return st.state !== 'Z' && st.state !== 'X' && environHas(pid, entry);
  });
}

/** Signals one process (never this one); one already gone is no error. */
export function signalProcess(pid: number, sig: NodeJS.Signals): void {
  if (pid === process.pid) throw new Error(`refusing to send ${sig} to this very process (pid ${pid})`);
  try {
    process.kill(pid, sig);
  } catch {
    /* gone */
  }
}

/** Whether process `pid` carries `entry` (NAME=value) in its environment. */
export function environHas(pid: number, entry: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(entry);
  } catch {
    return false;
  }
}
