import t from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { agentSandbox, eventually } from '../helpers/agent.js';

t.jobs = 2;

// A command agent that talks to lazy through the MCP server lazy wired in for it
// ($LAZY_MCP_COMMAND): the fake agent runs the SDK's own client against the real server.

const replies = (home: string) =>
  readFileSync(join(home, 'fake-state', 'mcp-replies.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { name: string; reply: { isError?: boolean } });

t.test('progress shows while the turn runs; lazy_finish is the review', async (t) => {
  const { sb, l, scenario } = await agentSandbox();
  t.teardown(sb.cleanup);
  scenario('mcp');
  sb.env.FAKE_SLEEP_MS = '10000'; // the window the checks below run in: wide enough for a loaded machine
  const id = await l.create('over mcp', '--accept', 'done');
  const started = await l('start', id);
  t.equal(started.code, 0, started.stderr);
  const shown = await eventually(async () => {
    const v = (await l.json('show', id)).value;
    return v.substate ? v : undefined;
  });
  t.same(shown.substate.kind, 'agent');
  t.equal(shown.substate.message, 'step 1 of 2 of turn 1');
  t.match((await l('list')).stdout, 'working (agent: step 1 of 2 of turn 1)');
  t.match((await l('show', id)).stdout, /working \(agent: step 1 of 2 of turn 1\)/);
  const done = (await l.json('wait', id, '--timeout', '60')).value.task;
  t.equal(done.status, 'blocked');
  const turn = done.turns.filter((x: any) => x.role === 'agent').at(-1);
  t.equal(turn.content, 'finished turn 1 over MCP');
  t.same(turn.details.risks, ['none known']);
  t.equal((await l.json('show', id)).value.substate, null, 'cleared with the turn');
  t.notOk(
    replies(sb.home).some((r) => r.reply.isError),
    'every tool call succeeded',
  );
});

t.test('a parent agent waiting on its subtask shows "waiting on <sub>"', async (t) => {
  const { sb, l, scenario } = await agentSandbox();
  t.teardown(sb.cleanup);
  scenario('mcp-wait,slow-succeed');
  sb.env.FAKE_SLEEP_MS = '10000'; // the window the checks below run in: wide enough for a loaded machine
  const id = await l.create('the parent', '--accept', 'done');
  t.equal((await l('start', id)).code, 0);
  const waiting = await eventually(async () => {
    const v = (await l.json('show', id)).value;
    return v.substate?.kind === 'waiting_on' ? v.substate : undefined;
  });
  const kids = (await l.json('list', '--parent', id)).value;
  t.equal(kids.length, 1, 'the agent created one subtask');
  t.equal(waiting.task, kids[0].id, 'the parent waits on it');
  t.match((await l('list')).stdout, new RegExp(`working \\(waiting on ${kids[0].id} \\d+s\\)`));
  const done = (await l.json('wait', id, '--timeout', '60')).value.task;
  t.equal(done.status, 'blocked');
  t.equal(done.turns.filter((x: any) => x.role === 'agent').at(-1).content, 'the subtask ended blocked');
  const kid = (await l.json('show', kids[0].id)).value;
  t.equal(kid.parent, id);
  t.equal(kid.created_by.actor, 'agent', 'the subtask was created by the agent');
  await l('wait', kids[0].id, '--timeout', '30');
});
