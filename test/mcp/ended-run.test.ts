import t from 'tap';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { agentSandbox, runDirOf } from '../helpers/agent.js';
import { gitSync } from '../helpers/env.js';
import { fakeEnv, mcpInproc } from '../helpers/mcp.js';

// Issue 27: an ended run's agent server acts no more. Once the turn it was started for is over,
// every tool that changes anything refuses (the CLI's action_not_allowed, naming the task and
// the run); reading goes on. Otherwise the agent, or a process it left, could accept a subtask
// into the parent's branch after the parent's review, and the parent's accept would land it.

t.test("after its turn, a run's server refuses every change and still reads", async (t) => {
  const box = await agentSandbox();
  const { sb, l } = box;
  const parent = await l.create('the parent', '--accept', 'done');
  const started = await l.json('start', parent);
  const run: string = started.value.run.id;
  t.equal((await l.json('wait', parent, '--timeout', '30')).value.task.status, 'blocked', "the parent's turn ended");
  // A subtask a person started and reviewed: what an accept would land, and an ask could ask.
  const child = await l.create('a reviewed part', '--parent', parent, '--accept', 'done');
  await l('start', child);
  t.equal((await l.json('wait', child, '--timeout', '30')).value.task.status, 'blocked');
  const fresh = await l.create('a part nobody started', '--parent', parent);

  // With the fake agent's bookkeeping, so a turn it did start would be counted.
  const mcp = await mcpInproc(sb, ['--run', run], fakeEnv(sb, 'succeed'));
  t.teardown(async () => {
    await mcp.close();
    await sb.cleanup();
  });
  const parentHead = () => gitSync(sb.dir, sb.env, ['rev-parse', `lazy/${parent}`]).trim();
  const tasks = async () => (await l.json('list', '--all')).value.map((r: { id: string }) => r.id).sort();
  const before = { head: parentHead(), tasks: await tasks(), turns: box.invocations().length };

  const calls: [string, Record<string, unknown>][] = [
    ['lazy_update_progress', { message: 'still here' }],
    ['lazy_create_subtask', { goal: 'one more part' }],
    ['lazy_accept', { id: child }],
    ['lazy_wait', { id: child }],
    ['lazy_ask', { id: child, question: 'what did you change?' }],
    ['lazy_start', { id: fresh }],
    ['lazy_request_decision', { question: 'A or B?' }],
    ['lazy_finish', { summary: 'more work' }],
  ];
  for (const [tool, args] of calls) {
    const r = await mcp.call(tool, args);
    t.equal(r.isError, true, `${tool} is refused`);
    t.match(
      r.structuredContent?.error,
      {
        code: 'action_not_allowed',
        message: `task ${parent} is no longer working on run ${run}: the turn this agent was started for has ended`,
        details: { action: tool.replace(/^lazy_/, ''), status: 'blocked', task: parent, run },
      },
      `${tool}: action_not_allowed, naming the task, the run and why`,
    );
  }
  t.same(await tasks(), before.tasks, 'no task was created');
  t.equal(parentHead(), before.head, "the parent's branch did not move: the subtask was not accepted");
  const v = (await l.json('show', child)).value;
  t.equal(v.status, 'blocked', 'the subtask is where it was');
  t.equal((await l.json('show', fresh)).value.status, 'backlog', 'the unstarted one was not started');
  t.equal(box.invocations().length, before.turns, 'no agent was launched (no start, no ask)');
  t.notOk(existsSync(join(runDirOf(sb, run), 'progress.json')), 'no progress line was recorded');

  t.match(await mcp.ok('lazy_show'), { id: parent, status: 'blocked' }, 'its own task still reads');
  t.match(await mcp.ok('lazy_show', { id: child }), { id: child }, 'and so does a subtask');
});
