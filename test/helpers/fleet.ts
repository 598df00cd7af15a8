import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli, gitSync, type Sandbox } from './env.js';
import { completeLines } from './agent.js';
import { team, withFakeAgent } from './team.js';
import { TestClock } from './clock.js';

// Fleet test helpers: N machines (clones of one bare remote, each its own host with the fake
// agent), queueing with the real command, and agent runs counted per task across their logs.

/**
 * n clones of one bare remote, each a machine: its own LAZY_HOST, the fake agent, its own agent log. Their
 * in-process commands share one clock: a test that moves it moves time for the whole team.
 */
export async function machines(n: number, extra: NodeJS.ProcessEnv = {}, name = 'lazy-fleet') {
  const tm = team(n, name);
  const clock = new TestClock();
  const boxes = tm.clones.map((c, i) => {
    const env = {
      ...c.env,
      LAZY_HOST: `machine-${i}`,
      FAKE_LOG: join(c.home, 'agent-log.jsonl'),
      LAZY_WORK_POLL_MS: '300',
      ...extra,
    };
    const sb: Sandbox = { ...c, env };
    return { sb, l: cli(sb, {}, { clock }), log: env.FAKE_LOG };
  });
  for (const b of boxes) await withFakeAgent(b.sb);
  return { tm, boxes, clock };
}

/** The refs under `pattern` in a repository (a clone or the bare remote). */
export const refs = (dir: string, pattern: string) =>
  gitSync(dir, process.env, ['for-each-ref', '--format=%(refname)', pattern]).trim().split('\n').filter(Boolean);

export async function queueTasks(sb: Sandbox, ids: string[], priority?: number): Promise<void> {
  const r = await cli(sb)('queue', ...ids, ...(priority === undefined ? [] : ['--priority', String(priority)]));
  if (r.code !== 0) throw new Error(`lazy queue failed: ${r.stderr}`);
}

/** task id → how many agent runs the logs recorded for it. */
export function runsPerTask(logs: string[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const log of logs) {
    if (!existsSync(log)) continue;
    for (const line of completeLines(readFileSync(log, 'utf8'))) {
      const id = (JSON.parse(line) as { env: Record<string, string> }).env.LAZY_TASK_ID!;
      out.set(id, (out.get(id) ?? 0) + 1);
    }
  }
  return out;
}
