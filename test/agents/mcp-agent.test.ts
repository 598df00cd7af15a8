import t from 'tap';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { agentSandbox, completeLines, eventually, type AgentBox } from '../helpers/agent.js';

t.jobs = 2;

// A command agent that talks to lazy through the MCP server lazy wired in for it
// ($LAZY_MCP_COMMAND): the fake agent runs the SDK's own client against the real server.

const replies = (home: string) => {
  const file = join(home, 'fake-state', 'mcp-replies.jsonl');
  return existsSync(file)
    ? completeLines(readFileSync(file, 'utf8')).map(
        (l) => JSON.parse(l) as { name: string; reply: { isError?: boolean } },
      )
    : [];
};

// How long a running turn may take to reach the state a test checks: a hang guard only, since
// the fake agent's work waits for the test's gate (a loaded CI machine took over 20 s once).
const REACH_MS = 120_000;

/** The working task's substate once `want` holds; failing, it says what it last saw and the agent's tool calls. */
async function substateWhen(box: AgentBox, id: string, want: (s: any) => boolean, what: string): Promise<any> {
  let last: unknown;
  const seen = () =>
    `; last seen: ${JSON.stringify(last)}; tool calls: ${JSON.stringify(replies(box.sb.home).map((r) => [r.name, r.reply]))}`;
  return eventually(
    async () => {
      const v = (await box.l.json('show', id)).value;
      last = { status: v.status, substate: v.substate };
      if (v.status !== 'working') throw new Error(`the turn ended before ${what}${seen()}`);
      return v.substate && want(v.substate) ? v.substate : undefined;
    },
    REACH_MS,
    () => what + seen(),
  );
}

t.test('progress shows while the turn runs; lazy_finish is the review', async (t) => {
  const box = await agentSandbox();
  const { sb, l, scenario } = box;
  t.teardown(sb.cleanup);
  scenario('mcp');
  const open = box.gate();
  const id = await l.create('over mcp', '--accept', 'done');
  const started = await l('start', id);
  t.equal(started.code, 0, started.stderr);
  const shown = await substateWhen(box, id, () => true, 'the progress substate');
  t.same(shown.kind, 'agent');
  t.equal(shown.message, 'step 1 of 2 of turn 1');
  t.match((await l('list')).stdout, 'working (agent: step 1 of 2 of turn 1)');
  t.match((await l('show', id)).stdout, /working \(agent: step 1 of 2 of turn 1\)/);
  open();
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
  const box = await agentSandbox();
  const { sb, l, scenario } = box;
  t.teardown(sb.cleanup);
  scenario('mcp-wait,slow-succeed');
  const open = box.gate(); // the subtask works until the checks below are done
  const id = await l.create('the parent', '--accept', 'done');
  t.equal((await l('start', id)).code, 0);
  const waiting = await substateWhen(box, id, (s) => s.kind === 'waiting_on', 'the waiting_on substate');
  const kids = (await l.json('list', '--parent', id)).value;
  t.equal(kids.length, 1, 'the agent created one subtask');
  t.equal(waiting.task, kids[0].id, 'the parent waits on it');
  t.match((await l('list')).stdout, new RegExp(`working \\(waiting on ${kids[0].id} \\d+(m\\d\\d)?s\\)`));
  open();
  const done = (await l.json('wait', id, '--timeout', '60')).value.task;
  t.equal(done.status, 'blocked');
  t.equal(done.turns.filter((x: any) => x.role === 'agent').at(-1).content, 'the subtask ended blocked');
  const kid = (await l.json('show', kids[0].id)).value;
  t.equal(kid.parent, id);
  t.equal(kid.created_by.actor, 'agent', 'the subtask was created by the agent');
  await l('wait', kids[0].id, '--timeout', '30');
});
