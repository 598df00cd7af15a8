import { appendFileSync, readFileSync } from 'node:fs';
import { env } from '../../lib/core/env.js';
import { clock } from '../../lib/core/clock.js';
import { selfIdentity } from '../../lib/core/proc.js';
import type { Launcher } from '../../lib/core/launcher.js';
import type { Io } from '../../lib/core/io.js';

// The supervisor in this process (issue: the suite owns its time). A launch runs `lazy __supervise <run>`
// through main(), as the detached process would, with the launching command's environment and clock; the
// agent is still a real child process. What it prints goes to the run's supervisor.log. The detached path
// (setsid, a SIGKILLed supervisor, reconcile of a dead one) keeps its own tests, which start the real CLI.
// Invariant: a supervisor here runs as this process, so a test never signals a run's supervisor pid
// unless its sandbox asked for detached supervisors.

interface Running {
  run: string;
  top: string;
  done: Promise<void>;
}

const running = new Set<Running>();
const failures: string[] = [];

/** Runs the supervise command in this process; `main` is injected to keep this file free of an import cycle. */
export function inprocLauncher(
  cliPath: string,
  main: (args: string[], o: { cwd: string; env: NodeJS.ProcessEnv; io: Partial<Io> }) => Promise<{ code: number }>,
): Launcher {
  const launcher: Launcher = {
    cliPath,
    supervise: (s) => {
      const log = (t: string) => appendFileSync(s.log, t);
      const r: Running = { run: s.run, top: s.top, done: Promise.resolve() };
      r.done = main(['__supervise', s.run], {
        cwd: s.top,
        env: { ...env() },
        io: { clock: clock(), out: log, err: log, launcher },
      })
        .then((x) => {
          if (x.code !== 0) failures.push(`the supervisor of run ${s.run} exited ${x.code}: ${tail(s.log)}`);
        })
        .catch((e: unknown) => void failures.push(`the supervisor of run ${s.run} threw: ${(e as Error).stack}`))
        .finally(() => running.delete(r));
      running.add(r);
      return selfIdentity();
    },
  };
  return launcher;
}

const tail = (path: string) => {
  try {
    return readFileSync(path, 'utf8').slice(-2000);
  } catch {
    return '(no supervisor.log)';
  }
};

/** Whether a run's in-process supervisor is still going. */
export const supervising = (run: string) => [...running].some((r) => r.run === run);

/** What the in-process supervisors under `root` are doing: each run and the end of its supervisor.log. */
export const supervisorsUnder = (root: string): string[] =>
  [...running]
    .filter((r) => r.top === root || r.top.startsWith(root + '/'))
    .map((r) => {
      const dir = `${r.top}/.git/lazy/runs/${r.run}`;
      return `run ${r.run}: ${tail(`${dir}/output.log`)}\n${tail(`${dir}/supervisor.log`)}`;
    });

const under = (root: string) => [...running].filter((r) => r.top === root || r.top.startsWith(root + '/'));

/** Whether the in-process supervisors under `root` all return by themselves within `ms`. */
export async function supervisorsSettle(root: string, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((res) => (timer = setTimeout(() => res(false), ms)));
  const settled = (async () => {
    for (let mine = under(root); mine.length; mine = under(root)) await Promise.all(mine.map((r) => r.done));
    return true as const;
  })();
  const ok = await Promise.race([settled, late]);
  clearTimeout(timer);
  return ok;
}

/**
 * Ends the in-process supervisors of the repositories under `root` the way a killed agent ends a turn: each
 * agent's group is SIGKILLed and its supervisor records that and returns (one that starts a next turn meanwhile
 * has that agent killed too). False when one is still going after `ms`.
 */
export async function endSupervisorsUnder(root: string, ms = 30_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (let mine = under(root); mine.length; mine = under(root)) {
    if (Date.now() > deadline) return false;
    for (const r of mine) killAgent(`${r.top}/.git/lazy/runs/${r.run}/agent.json`);
    await Promise.race([Promise.all(mine.map((x) => x.done)), new Promise((res) => setTimeout(res, 50))]);
  }
  return true;
}

function killAgent(agentFile: string): void {
  try {
    const { pid } = JSON.parse(readFileSync(agentFile, 'utf8')) as { pid: number };
    process.kill(-pid, 'SIGKILL');
  } catch {
    /* not started yet, or gone */
  }
}

/** Supervisors that failed in this process since the last call (each one is a test failure). */
export function takeSupervisorFailures(): string[] {
  return failures.splice(0);
}
