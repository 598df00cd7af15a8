import { existsSync, readFileSync } from 'node:fs';
import { openRepo } from '../../lib/core/repo.js';
import { withEnv } from '../../lib/core/env.js';
import { Store } from '../../lib/store/store.js';
import type { Sandbox } from './env.js';

// Fleet test helpers: queue tasks by writing the queue entry through the store (what
// lazy queue records), and count agent runs per task across several clones' fake-agent logs.

export async function queueTasks(sb: Sandbox, ids: string[], priority?: number): Promise<void> {
  await withEnv(sb.env, async () => {
    const store = new Store(await openRepo(sb.dir));
    try {
      for (const id of ids)
        await store.mutate(id, 'queue', (d) => {
          d.transition(d.status, 'queue', 'queued', priority === undefined ? {} : { details: { priority } });
        });
    } finally {
      store.close();
    }
  });
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
