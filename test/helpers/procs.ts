import t from 'tap';
import { readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { spawn, type ChildProcess, type ChildProcessWithoutNullStreams, type SpawnOptions } from 'node:child_process';
import { endSupervisorsUnder, supervisorsSettle, supervisorsUnder, takeSupervisorFailures } from './supervise.js';

// The one registry of what tests start in the background. Supervisors and agents are
// detached by design, so a test cannot wait for them the way it waits for a command: they
// are found by what they run in (a cwd, or a HOME, under a test's temporary folder), stopped
// and waited for before their folder is removed. After every top-level test the registry
// checks that nothing the test started is still running; a leftover is a failing assertion.

interface Folder {
  root: string;
  removed: boolean;
}

const folders: Folder[] = [];
const children = new Set<ChildProcess>();
let pending: Folder[] = [];

export interface Proc {
  pid: number;
  cmdline: string;
}

/** Our processes whose working directory, or HOME, is inside root. */
export function processesUnder(root: string): Proc[] {
  const found: Proc[] = [];
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    try {
      const cwd = readlinkSync(`/proc/${pid}/cwd`);
      const home = /(?:^|\0)HOME=([^\0]*)/.exec(readFileSync(`/proc/${pid}/environ`, 'latin1'))?.[1] ?? '';
      if (!inside(cwd, root) && !inside(home, root)) continue;
      if (zombie(pid)) continue;
      found.push({ pid, cmdline: readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim() });
    } catch {
      /* gone, or not ours to read */
    }
  }
  return found;
}

/** A removed folder still shows in /proc as "<path> (deleted)". */
const inside = (path: string, root: string) => {
  const p = path.replace(/ \(deleted\)$/, '');
  return p === root || p.startsWith(root + '/');
};

/** A zombie has exited; only its parent's wait is missing (and PID 1 may never reap it). */
function zombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] === 'Z';
  } catch {
    return true;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** SIGKILLs everything running under root, again until nothing is (a dying supervisor may start a git). */
export async function stopUnder(root: string, timeoutMs = 10_000): Promise<Proc[]> {
  const stopped: Proc[] = [];
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const live = processesUnder(root);
    if (live.length === 0) return stopped;
    if (Date.now() > deadline)
      throw new Error(`processes under ${root} survived SIGKILL: ${live.map((p) => p.pid).join(', ')}`);
    for (const p of live) {
      try {
        process.kill(p.pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
      if (!stopped.some((s) => s.pid === p.pid)) stopped.push(p);
    }
    await sleep(20);
  }
}

/** Registers a test's temporary folder; its remover stops what runs there first. */
export function trackFolder(root: string): () => Promise<void> {
  const f: Folder = { root, removed: false };
  folders.push(f);
  pending.push(f);
  return () => removeFolder(f);
}

async function removeFolder(f: Folder): Promise<void> {
  if (f.removed) return;
  // Supervisors in this process first, by their agents' ends: killing their git would leave them hanging mid-write.
  if (!(await endSupervisorsUnder(f.root)))
    throw new Error(`in-process supervisors under ${f.root} did not end: ${supervisorsUnder(f.root).join('\n')}`);
  await stopUnder(f.root);
  rmSync(f.root, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
  f.removed = true;
}

/**
 * The only way a test starts a process: tracked until it exits. (Typed with streams, as
 * the tests that read them ask for pipes.)
 */
export function background(command: string, args: string[], opts: SpawnOptions): ChildProcessWithoutNullStreams {
  const child = spawn(command, args, opts) as ChildProcessWithoutNullStreams;
  children.add(child);
  child.on('exit', () => children.delete(child));
  return child;
}

/** Resolves when a background process has exited (at once if it already has). */
export function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode !== null || child.signalCode !== null)
    return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  return new Promise((res) => child.once('close', (code, signal) => res({ code, signal })));
}

/** Fails (on the root test) for each background process still running, then stops it. */
async function checkChildren(test: string): Promise<void> {
  for (const child of [...children]) {
    // A kill sent by the test's own teardown is still being delivered: give it a moment.
    await Promise.race([exited(child), sleep(2000)]);
    if (!children.has(child)) continue;
    t.fail(`${test} left a background process running: pid ${child.pid} (${child.spawnfile})`);
    child.kill('SIGKILL');
    await exited(child);
  }
}

/** Fails (on the root test) for each process a finished test left running, then stops it. */
async function checkLeftovers(test: string, owned: Folder[]): Promise<void> {
  await checkChildren(test);
  for (const f of takeSupervisorFailures()) t.fail(`${test}: ${f}`);
  for (const f of owned) {
    const live = processesUnder(f.root);
    for (const p of live)
      t.fail(`${test} left a process running in ${f.root}: pid ${p.pid} (${p.cmdline.slice(0, 120)})`);
    // A supervisor in this process may still be recording the end of a turn the test saw end: a moment for that.
    if (!(await supervisorsSettle(f.root, 2000)))
      for (const r of supervisorsUnder(f.root)) t.fail(`${test} left a turn running in ${f.root}: ${r.slice(0, 300)}`);
    await removeFolder(f);
  }
}

t.afterEach(async (child) => {
  // Tests running concurrently (t.jobs > 1) cannot tell their processes from a sibling's:
  // the file's teardown checks them all instead.
  if (child.parent !== t || t.jobs > 1) return;
  const owned = pending;
  pending = [];
  await checkLeftovers(`test "${child.name}"`, owned);
});

t.teardown(async () => {
  await checkChildren('the file');
  for (const f of takeSupervisorFailures()) t.fail(`the file: ${f}`);
  const rest = folders.filter((f) => !f.removed);
  for (const f of rest) {
    if (processesUnder(f.root).length) t.fail(`a process was left running in ${f.root} when the file ended`);
    await removeFolder(f);
  }
});
