import t, { type Test } from 'tap';
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { agentSandbox, eventually, readJson, runDirOf, type AgentBox } from '../helpers/agent.js';
import { substateOf } from '../../lib/agents/substate.js';
import { fakeEnv, mcpClient, mcpInproc } from '../helpers/mcp.js';

// issue 13, `lazy mcp --run <run>` (agent mode): the server is bound to the run lazy launched,
// acts as actor agent on its own task and direct subtasks only, and writes what the supervisor reads.
// Behaviour runs the server in this process (mcpInproc); the client going away is the spawned server's.

const AGENT_TOOLS = [
  'lazy_update_progress',
  'lazy_request_decision',
  'lazy_finish',
  'lazy_create_subtask',
  'lazy_start',
  'lazy_wait',
  'lazy_ask',
  'lazy_show',
  'lazy_accept',
];

/** A slow turn keeps the task working on a real run while the test drives that run's server. */
const SLOW = { FAKE_SLEEP_MS: '120000' };

async function workingTask(t: Test): Promise<{ box: AgentBox; id: string; run: string; agentEnv: NodeJS.ProcessEnv }> {
  const box = await agentSandbox();
  Object.assign(box.sb.env, SLOW);
  box.scenario('slow-succeed');
  const id = await box.l.create('the parent', '--accept', 'done');
  const started = await box.l.json('start', id);
  t.equal(started.value.task.status, 'working');
  // The agent is running before its server is driven, as a real agent's calls are: the supervisor
  // clears the result path when it launches an attempt, so an envelope written before that is gone.
  await eventually(() => box.invocations().length > 0, 30_000, 'the agent to start');
  return { box, id, run: started.value.run.id, agentEnv: fakeEnv(box.sb, 'slow-succeed', SLOW) };
}

/** Stops every working task, then the servers, then removes the sandbox. */
function cleanUp(t: Test, box: AgentBox, clients: { close(): Promise<unknown> }[]) {
  t.teardown(async () => {
    for (const c of clients) await c.close();
    for (const row of (await box.l.json('list')).value) if (row.status === 'working') await box.l('stop', row.id);
    await box.sb.cleanup();
  });
}

t.test('an agent gets its own tools, bound to its run, recorded as actor agent', async (t) => {
  const { box, id, run, agentEnv } = await workingTask(t);
  const mcp = await mcpInproc(box.sb, ['--run', run], agentEnv);
  cleanUp(t, box, [mcp]);
  t.same(
    (await mcp.client.listTools()).tools.map((x) => x.name),
    AGENT_TOOLS,
    'tools/list names the agent tools',
  );

  t.match(mcp.client.getInstructions(), `lazy task ${id} (run ${run})`, 'the server tells the agent its binding');
  const own = await mcp.ok('lazy_show');
  t.match(own, { id, status: 'working', current_run: run }, 'lazy_show without an id is its own task');

  const progress = join(runDirOf(box.sb, run), 'progress.json');
  const short = await mcp.call('lazy_update_progress', { message: '  running\n migration   3/7 ' });
  t.equal(short.content[0]!.text, 'recorded: running migration 3/7', 'one line, whitespace collapsed, echoed');
  t.equal(readJson(progress).message, 'running migration 3/7', "it is the run's progress line");
  const long = 'step '.repeat(40).trim();
  const cut = await mcp.call('lazy_update_progress', { message: long });
  t.equal(cut.content[0]!.text.split(': ')[0], `recorded (cut to 120 of ${long.length} characters)`, 'a cut is said');
  t.match(cut.structuredContent, { truncated: true, length: long.length });
  t.equal([...readJson(progress).message].length, 120, 'and the line kept is 120 characters');

  const { task: child } = await mcp.ok('lazy_create_subtask', { goal: 'a part of it', accept: ['done'] });
  t.match(
    child,
    { parent: id, status: 'backlog', created_by: { actor: 'agent' } },
    'a subtask of its task, by the agent',
  );
  t.match(await mcp.ok('lazy_show', { id: child.id }), { id: child.id }, 'a direct subtask is in scope');
  const started = await mcp.ok('lazy_start', { id: child.id });
  t.equal(started.task.status, 'working', 'the agent starts its subtask');
  t.equal(started.task.changelog.at(-1).actor, 'agent', 'recorded with actor agent');
});

t.test('scope: another task, and accepting its own task, are refused with status and actions', async (t) => {
  const { box, id, run, agentEnv } = await workingTask(t);
  const mcp = await mcpInproc(box.sb, ['--run', run], agentEnv);
  cleanUp(t, box, [mcp]);
  const stranger = await box.l.create('somebody else’s task');
  for (const [tool, args] of [
    ['lazy_show', { id: stranger }],
    ['lazy_start', { id: stranger }],
    ['lazy_wait', { id: stranger }],
    ['lazy_ask', { id: stranger, question: 'hello?' }],
    ['lazy_accept', { id: stranger }],
  ] as const) {
    const r = await mcp.call(tool, args);
    t.equal(r.isError, true, `${tool} of another task is a tool error`);
    t.match(r.structuredContent?.error, {
      code: 'action_not_allowed',
      message: new RegExp(`task ${stranger} is outside this agent's scope`),
      details: { status: 'backlog', available_actions: ['start', 'close', 'comment', 'edit'], task: stranger },
    });
  }
  t.equal((await box.l.json('show', stranger)).value.status, 'backlog', 'and the other task is untouched');
  const grandchild = await box.l.create(
    'a subtask of a subtask',
    '--parent',
    (await mcp.ok('lazy_create_subtask', { goal: 'child' })).task.id,
  );
  const deep = await mcp.call('lazy_show', { id: grandchild });
  t.match(deep.structuredContent?.error, { code: 'action_not_allowed' }, 'a subtask of a subtask is out of scope');

  const self = await mcp.call('lazy_accept', { id });
  t.match(self.structuredContent?.error, {
    code: 'action_not_allowed',
    message: `an agent cannot accept its own task ${id}`,
    details: { action: 'accept', status: 'working', task: id },
  });
  t.ok(Array.isArray(self.structuredContent.error.details.available_actions), 'with its available actions');
  const waitSelf = await mcp.call('lazy_wait', { id });
  t.match(waitSelf.structuredContent?.error, { code: 'action_not_allowed', message: /cannot wait its own task/ });
  t.equal((await box.l.json('show', id)).value.status, 'working', 'the own task is still working');
});

t.test('request_decision and finish write the result envelope the supervisor reads', async (t) => {
  const { box, id, run, agentEnv } = await workingTask(t);
  const mcp = await mcpInproc(box.sb, ['--run', run], agentEnv);
  cleanUp(t, box, [mcp]);
  const worktree: string = (await box.l.json('show', id)).value.worktree;
  const result = join(worktree, '.lazy', `result-${run}.json`);

  const asked = await mcp.call('lazy_request_decision', { question: 'Postgres or SQLite?' });
  t.notOk(asked.isError);
  t.match(asked.content[0]!.text, /End your turn now/, 'the agent is told to end its turn');
  t.same(readJson(result), {
    status: 'decision_required',
    summary: 'Postgres or SQLite?',
    question: 'Postgres or SQLite?',
  });

  const envelope = {
    summary: 'added the migration',
    risks: ['touches the schema'],
    commands: [{ command: 'npm test', exit_code: 0 }],
  };
  const done = await mcp.call('lazy_finish', envelope);
  t.notOk(done.isError);
  t.same(readJson(result), { status: 'completed', ...envelope }, 'the envelope, as the result file would hold it');
  t.equal(done.structuredContent.result_file, result);

  const bad = await mcp.call('lazy_finish', { summary: 'x', commands: [{ command: 'npm test', exit_code: 'zero' }] });
  t.match(bad.structuredContent?.error, { code: 'usage', message: /finish: envelope fails its schema/ });
  t.same(readJson(result), { status: 'completed', ...envelope }, 'a malformed one is refused and writes nothing');

  await box.l('stop', id);
  await eventually(async () => (await box.l.json('show', id)).value.status !== 'working', 20_000, 'the stop');
  const late = await mcp.call('lazy_finish', { summary: 'too late' });
  t.match(late.structuredContent?.error, {
    code: 'action_not_allowed',
    message: new RegExp(`no longer working on run ${run}`),
    details: { run },
  });
  t.ok(late.structuredContent.error.details.status !== 'working', 'the refusal names the status');
});

t.test('lazy_wait on a subtask shows as the substate and clears when the client goes away', async (t) => {
  const { box, run, agentEnv } = await workingTask(t);
  const mcp = await mcpClient(box.sb, ['--run', run], agentEnv);
  const waiter = await mcpClient(box.sb, ['--run', run], agentEnv);
  cleanUp(t, box, [mcp, waiter]);
  const child = (await mcp.ok('lazy_create_subtask', { goal: 'slow part', accept: ['done'] })).task.id;
  await mcp.ok('lazy_start', { id: child });

  const record = join(runDirOf(box.sb, run), 'waiting-on.json');
  const pending = waiter.call('lazy_wait', { id: child }).catch((e: Error) => e);
  const rec = await eventually(() => existsSync(record) && readJson(record), 20_000, 'the wait record');
  t.equal(rec.task, child, 'the run is waiting on the subtask');
  t.equal(rec.holder.pid, waiter.transport.pid, 'held by the server process');
  const lazyDir = join(box.sb.dir, '.git', 'lazy');
  t.match(substateOf(lazyDir, { status: 'working', current_run: run }), { kind: 'waiting_on', task: child });

  // A client going away ends the server's stdin. The SDK's close would send SIGTERM 2 s later, which a
  // loaded machine can reach, so stdin is ended here and the exit status says how the server ended
  // (the SDK keeps its child process private).
  const server = (waiter.transport as unknown as { _process: ChildProcess })._process;
  const ended = new Promise<{ code: number | null; signal: string | null }>((r) =>
    server.once('exit', (code, signal) => r({ code, signal })),
  );
  server.stdin!.end();
  t.same(await ended, { code: 0, signal: null }, 'the server ended on stdin EOF, not on a signal');
  t.notOk(existsSync(record), 'the wait record is gone');
  t.equal(substateOf(lazyDir, { status: 'working', current_run: run }), null, 'and so is the substate');
  t.type(await pending, Error, 'the call ended with the connection');
});

t.test('an ask run is read-only: its agent reports, answers and reads, and changes nothing else', async (t) => {
  const { agentTools } = await import('../../lib/mcp/agent.js');
  const rec = { id: 'r1', task: 'abcd1234', kind: 'ask', worktree: '/nowhere' } as any;
  t.same(
    agentTools(rec).map((x) => x.name),
    ['lazy_update_progress', 'lazy_finish', 'lazy_show'],
  );
  t.same(
    agentTools({ ...rec, kind: 'work' }).map((x) => x.name),
    AGENT_TOOLS,
  );
});
