import t from 'tap';
import { agentSandbox, eventually } from '../helpers/agent.js';

// Issue 32: a turn's agent time leaves out its wait on a subtask. The parent's agent calls lazy_wait through lazy's
// MCP server; the server records the wait when it ends, the turn's outcome carries the total
// (details.waited_seconds), and lazy usage counts launch to end less that.

t.test("a parent's agent time is its turn less the time it waited on its subtask", async (t) => {
  const box = await agentSandbox();
  const { sb, l, scenario } = box;
  t.teardown(sb.cleanup);
  scenario('mcp-wait,slow-succeed');
  const open = box.gate();
  const id = await l.create('the parent', '--accept', 'done');
  t.equal((await l('start', id)).code, 0);
  // The subtask works until its gate opens: open it once the parent is waiting on it.
  await eventually(
    async () => {
      const v = (await l.json('show', id)).value;
      if (v.status !== 'working') throw new Error(`the turn ended before it waited: ${v.status}`);
      return v.substate?.kind === 'waiting_on' ? true : undefined;
    },
    120_000,
    () => 'the parent waiting on its subtask',
  );
  open();
  const done = (await l.json('wait', id, '--timeout', '60')).value.task;
  t.equal(done.status, 'blocked');
  const turn = done.turns.filter((x: any) => x.role === 'agent').at(-1);
  const waited = turn.details.waited_seconds;
  t.ok(typeof waited === 'number' && waited > 0, `the wait is on the turn's record (${waited} s)`);
  const launch = done.changelog.find((c: any) => c.run === turn.run && c.status === 'working');
  const span = (Date.parse(turn.timestamp) - Date.parse(launch.timestamp)) / 1000;
  t.ok(waited < span, 'a wait inside the turn');
  const r = (await l.json('usage')).value;
  const parent = r.groups.find((g: any) => g.key === id);
  t.ok(
    Math.abs(parent.agent_seconds - (span - waited)) < 0.01,
    `agent time ${parent.agent_seconds} = ${span} - ${waited}`,
  );
  const kid = r.groups.find((g: any) => g.key !== id);
  t.ok(kid && kid.turns === 1, "the subtask's own turn is its own group");
});
