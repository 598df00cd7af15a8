import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gitSync, LAZY, type Run, type Sandbox } from './env.js';
import { eventually, readJson } from './agent.js';
import { background, exited } from './procs.js';
import { machines, queueTasks } from './fleet.js';

// Workers as real processes (lazy work spawned, SIGKILLed, frozen), and what a test reads of them:
// whether a clone has an agent alive, and a machine's whole turn killed as a crash would.

export function startWorker(sb: Sandbox, args: string[], env: NodeJS.ProcessEnv = {}) {
  const child = background(process.execPath, [LAZY, 'work', ...args, '--json'], {
    cwd: sb.dir,
    env: { ...sb.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  return {
    child,
    done: async () => ({ ...(await exited(child)), stdout, stderr }),
    stderr: () => stderr,
  };
}

export type Worker = ReturnType<typeof startWorker>;

export /** /proc/<pid>/stat of a process, or '' when it is gone. */
function procStat(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return '';
  }
}

export async function seeded(boxes: Awaited<ReturnType<typeof machines>>['boxes'], n: number) {
  const seed = boxes[0]!;
  const ids: string[] = [];
  for (let i = 0; i < n; i++) ids.push(await seed.l.create(`task ${i}`, '--accept', 'done'));
  await queueTasks(seed.sb, ids);
  if ((await seed.l('push')).code !== 0) throw new Error('push failed');
  return ids;
}

export /** Whether some agent is alive in this clone (its runs' agent.json, checked in /proc). */
function agentAlive(sb: Sandbox): boolean {
  const runs = join(sb.dir, '.git', 'lazy', 'runs');
  let names: string[] = [];
  try {
    names = readdirSync(runs);
  } catch {
    return false;
  }
  return names.some((r) => {
    try {
      const stat = procStat(readJson(join(runs, r, 'agent.json')).pid as number);
      return stat !== '' && !/\) Z /.test(stat);
    } catch {
      return false;
    }
  });
}

/**
 * Whether a dead machine's lease stayed as it was for more than a renewal's interval (renewals come a third of a lease
 * after the last): nothing of that machine renews it any more. Real time, on purpose: a renewal that does not come is
 * seen only by waiting past when it would have; a takeover tested by moving the taker's clock alone would pass while
 * the "dead" machine still renewed.
 */
export async function leaseStays(remote: string, id: string, leaseMs: number): Promise<boolean> {
  const read = () => gitSync(remote, process.env, ['rev-parse', '--verify', `refs/lazy/leases/${id}`]).trim();
  const before = read();
  await new Promise((r) => setTimeout(r, leaseMs * 0.6));
  return read() === before;
}

export /** Kills a worker's whole turn on a machine: the worker, then its run's supervisor and agent group. */
async function killMachine(sb: Sandbox, worker: Worker) {
  worker.child.kill('SIGKILL');
  await worker.done();
  const runs = join(sb.dir, '.git', 'lazy', 'runs');
  for (const r of readdirSync(runs)) {
    const dir = join(runs, r);
    const pids = [readJson(join(dir, 'run.json')).supervisor?.pid as number | undefined];
    try {
      pids.push(-(readJson(join(dir, 'agent.json')).pid as number));
    } catch {
      /* no agent yet */
    }
    for (const pid of pids)
      try {
        if (pid) process.kill(pid, 'SIGKILL');
      } catch {
        /* gone */
      }
  }
}

/**
 * `lazy work --drain` on a clone (in-process: the test's clock judges the leases), again until one run finished a
 * turn (a takeover: its pull may not have seen the lapsed lease's last push yet).
 */
export async function drainUntilFinished(l: (...args: string[]) => Promise<Run>, what: string): Promise<Run> {
  let taken: Run | undefined;
  await eventually(
    async () => {
      taken = await l('work', 'origin', '--drain', '--json');
      return (JSON.parse(taken.stdout) as { finished?: unknown[] }).finished?.length === 1;
    },
    120_000,
    what,
  );
  return taken!;
}
