import t, { type Test } from 'tap';
import { join } from 'node:path';
import { agentSandbox, shellScript, type AgentBox } from '../helpers/agent.js';
import { ROOT } from '../helpers/env.js';
import { codex } from '../../lib/agents/adapters/codex.js';
import type { StreamState } from '../../lib/agents/adapters/adapter.js';

t.jobs = 2;

// Issue 13, usage: claude's cache reads and writes are counted; codex's usage, cumulative per
// thread, becomes each turn's difference (a resumed thread's first turn is not counted twice);
// show --json and list --json carry the per-task totals, with cost where the agent reports one.

const CODEX = join(ROOT, 'test', 'fixtures', 'agents', 'codex-0.171.0');
const zero = { cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };

/** Two turns of one task: start, then unblock with feedback (the agent resumes its session). */
async function twoTurns(t: Test, box: AgentBox): Promise<{ id: string; shown: any; listed: any }> {
  const id = await box.l.create('count my tokens', '--accept', 'done');
  await box.l('start', id);
  t.equal((await box.l.json('wait', id, '--timeout', '30')).value.task.status, 'blocked');
  await box.l('unblock', id, '-m', 'once more');
  t.equal((await box.l.json('wait', id, '--timeout', '30')).value.task.status, 'blocked');
  const shown = (await box.l.json('show', id)).value;
  const listed = (await box.l.json('list')).value.find((r: any) => r.id === id);
  return { id, shown, listed };
}

t.test('codex: a resumed thread records each turn its own share of the cumulative usage', async (t) => {
  const box = await agentSandbox();
  t.teardown(box.sb.cleanup);
  // The recorded codex 0.171.0 streams: the first turn, then `exec resume` of the same thread.
  const replay = shellScript(
    box.sb,
    'codex-replay',
    `if [ "$2" = resume ]; then cat '${CODEX}/resume-success.stdout'; else cat '${CODEX}/success-text.stdout'; fi\n`,
  );
  await box.l('config', 'set', 'agents.cx.command', replay);
  await box.l('config', 'set', 'agents.cx.adapter', 'codex');
  await box.l('config', 'set', 'agent', 'cx');
  const { shown, listed } = await twoTurns(t, box);
  const turns = shown.turns.filter((x: any) => x.role === 'agent');
  t.equal(turns.length, 2);
  t.equal(turns[1].details.agent_session_id, turns[0].details.agent_session_id, 'the same thread, resumed');
  t.strictSame(turns[0].details.usage, { input_tokens: 100, output_tokens: 10, ...zero });
  t.strictSame(turns[1].details.usage, { input_tokens: 100, output_tokens: 10, ...zero }, '200/20 so far, less 100/10');
  t.strictSame(turns[1].details.usage_cumulative, { input_tokens: 200, output_tokens: 20, ...zero });
  const totals = { input_tokens: 200, output_tokens: 20, ...zero, cost_usd: null };
  t.strictSame(shown.usage, totals, 'show: the first turn counted once; codex names no cost');
  t.strictSame(listed.usage, totals, 'list --json carries the same totals');
  t.match(
    (await box.l('show', shown.id)).stdout,
    /^usage: {5}200 in \/ 20 out tokens$/m,
    'text: no cost, no cache part',
  );
});

t.test('claude: cache reads and writes counted, cost summed, in show and list', async (t) => {
  const box = await agentSandbox({ adapter: 'claude' });
  t.teardown(box.sb.cleanup);
  const { id, shown, listed } = await twoTurns(t, box);
  const totals = {
    input_tokens: 200,
    output_tokens: 40,
    cache_read_input_tokens: 6000,
    cache_creation_input_tokens: 800,
    cost_usd: 0.002,
  };
  t.strictSame(shown.usage, totals);
  t.strictSame(listed.usage, totals);
  t.match(
    (await box.l('show', id)).stdout,
    /^usage: {5}200 in \/ 40 out tokens, cache 6000 read \/ 800 written, \$0\.0020$/m,
  );
});

t.test("codex's input count includes its cached tokens: they are moved to cache_read", async (t) => {
  const state: StreamState = {};
  codex.parseLine(
    JSON.stringify({
      type: 'turn.completed',
      usage: { input_tokens: 500, cached_input_tokens: 300, cache_write_input_tokens: 7, output_tokens: 10 },
    }),
    state,
  );
  t.strictSame(state.usageCumulative, {
    input_tokens: 200,
    output_tokens: 10,
    cache_read_input_tokens: 300,
    cache_creation_input_tokens: 7,
  });
  t.equal(state.usage, undefined, 'never taken as the turn’s own usage');
});
