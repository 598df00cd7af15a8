import { sandbox, cli } from './env.js';
import { openRepo } from '../../lib/core/repo.js';
import { Store } from '../../lib/store/store.js';
import { identityOf } from '../../lib/core/proc.js';
import type { RunRecord } from '../../lib/agents/runs.js';

// A task working on a run, in a real repository, and that run's record: what recording an outcome through the
// store's own write protocol starts from (test/agents/outcome-runs, test/agents/fit).

export async function workingTask(
  sb: ReturnType<typeof sandbox>,
  run: string,
  goal: string,
  teardown: (f: () => void) => void,
): Promise<{ id: string; store: Store }> {
  process.env.GIT_AUTHOR_NAME = 'Ada Lovelace';
  process.env.GIT_AUTHOR_EMAIL = 'ada@example.com';
  const id = await cli(sb).create(goal, '--accept', 'x');
  const store = new Store(await openRepo(sb.dir), 'human');
  teardown(() => store.close());
  await store.mutate(id, 'start', (d) => {
    d.turn({ role: 'human', kind: 'prompt', content: 'go', feedback: 'pending', run });
    d.transition('working', 'start', 'started', { run, host: 'here' });
  });
  return { id, store };
}

export const runRecord = (task: string, run: string): RunRecord => ({
  id: run,
  task,
  kind: 'work',
  turn: 1,
  session: 's0000000',
  agent: { name: 'fake', adapter: 'command', command: ['x'] },
  agent_session_id: null,
  worktree: '/nonexistent',
  base: 'main',
  merge_upstream: null,
  consumes: [],
  restore: null,
  created_at: new Date().toISOString(),
  host: 'here',
  launcher: identityOf(process.pid),
  supervisor: null,
});
