import { existsSync, readFileSync } from 'node:fs';
import { cli, type Sandbox } from './env.js';

// Fleet test helpers: queue tasks with the real command, and count agent runs per task across
// several clones' fake-agent logs.

export async function queueTasks(sb: Sandbox, ids: string[], priority?: number): Promise<void> {
  const r = await cli(sb)('queue', ...ids, ...(priority === undefined ? [] : ['--priority', String(priority)]));
  if (r.code !== 0) throw new Error(`lazy queue failed: ${r.stderr}`);
}

/** task id → how many agent runs the logs recorded for it. */
export function runsPerTask(logs: string[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const log of logs) {
    if (!existsSync(log)) continue;
    for (const line of readFileSync(log, 'utf8').split('\n').filter(Boolean)) {
      const id = (JSON.parse(line) as { env: Record<string, string> }).env.LAZY_TASK_ID!;
      out.set(id, (out.get(id) ?? 0) + 1);
    }
  }
  return out;
}
