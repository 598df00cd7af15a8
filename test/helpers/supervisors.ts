import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Sandbox } from './env.js';
import { eventually, supervisorGone, type AgentBox } from './agent.js';

// Processes an agent leaves behind, and supervisors that must end on their own.

/** Running, not a zombie (a zombie's new parent may reap it late). */
export const alive = (pid: number) => {
  try {
    return !/^[ZX]$/.test(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ').at(-1)!.split(' ')[0]!);
  } catch {
    return false;
  }
};

/** The pid a fake agent's child wrote (FAKE_STATE/child-<n>.pid), and a teardown that ends it if a test failed. */
export async function childPid(t: { teardown(f: () => void): void }, box: AgentBox, n = 1): Promise<number> {
  const file = join(box.sb.home, 'fake-state', `child-${n}.pid`);
  const pid = await eventually(() => existsSync(file) && Number(readFileSync(file, 'utf8')), 20_000, 'the child pid');
  t.teardown(() => {
    if (alive(pid)) process.kill(pid, 'SIGKILL');
  });
  return pid;
}

/** Removes the sandbox once every supervisor it started has exited: no test leaves a process behind. */
export function cleanupAfterSupervisors(t: { teardown(f: () => Promise<void>): void }, sb: Sandbox): void {
  t.teardown(async () => {
    const runs = join(sb.dir, '.git', 'lazy', 'runs');
    for (const run of existsSync(runs) ? readdirSync(runs) : [])
      if (existsSync(join(runs, run, 'run.json'))) await supervisorGone(sb, run, 30_000);
    await sb.cleanup();
  });
}
