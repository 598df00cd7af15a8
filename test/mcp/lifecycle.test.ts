import t from 'tap';
import { agentRecorded, agentSandbox } from '../helpers/agent.js';
import { fakeEnv, mcpInproc } from '../helpers/mcp.js';

// Issue 28: every lifecycle action a person has on the CLI has a builder tool, with the command's options,
// codes and messages; and a task's available_actions over MCP name only actions the surface serves.

t.test('stop, resume, close, reopen, queue and its kin, edit and submit as tools', async (t) => {
  const box = await agentSandbox();
  const mcp = await mcpInproc(box.sb, [], fakeEnv(box.sb, 'hang,hang'));
  t.teardown(async () => {
    await mcp.close();
    await box.sb.cleanup();
  });
  const { task } = await mcp.ok('lazy_create', { goal: 'long work', accept: ['done'] });
  const id: string = task.id;

  // edit: a change named; none named is a usage error (there is no editor to open).
  const edited = await mcp.ok('lazy_edit', { id, goal: 'longer work', tags: ['mcp'] });
  t.equal(edited.task.goal, 'longer work');
  t.same(edited.task.tags, ['mcp']);
  const none = await mcp.call('lazy_edit', { id });
  t.ok(none.isError);
  t.match(none.structuredContent, { error: { code: 'usage', message: /name a change/ } });

  // queue and its kin: the CLI's array, as {items}; a priority is an integer.
  const q = await mcp.ok('lazy_queue', { ids: [id], priority: 2 });
  t.match(q.items, [{ task: { id, schedule: { queued: true, priority: 2 } } }]);
  t.match((await mcp.ok('lazy_pause', { ids: [id] })).items, [{ task: { schedule: { paused: true } } }]);
  t.match((await mcp.ok('lazy_unpause', { ids: [id] })).items, [{ task: { schedule: { paused: false } } }]);
  t.match((await mcp.ok('lazy_unqueue', { ids: [id] })).items, [{ task: { schedule: { queued: false } } }]);
  const bad = await mcp.call('lazy_queue', { ids: [id], priority: 1.5 });
  t.match(bad.structuredContent, { error: { code: 'usage', message: /--priority must be an integer/ } });

  // stop and resume a running turn.
  const started = await mcp.ok('lazy_start', { id });
  // The supervisor records its agent after start returns: stop signals what is on record.
  await agentRecorded(box.sb, started.task.current_run);
  const stopped = await mcp.ok('lazy_stop', { id });
  t.equal(stopped.task.status, 'interrupted');
  t.not(stopped.signal, 'none', 'its agent was signalled');
  const resumed = await mcp.ok('lazy_resume', { id });
  t.equal(resumed.task.status, 'working');
  t.equal((await mcp.ok('lazy_stop', { id })).task.status, 'interrupted');

  // close and reopen, with the CLI's refusals: a reopen of a complete task needs a reason.
  const closed = await mcp.ok('lazy_close', { id, reason: 'not now' });
  t.equal(closed.task.status, 'abandoned');
  t.equal(closed.task.changelog.at(-1).reason, 'not now');
  t.equal((await mcp.ok('lazy_reopen', { id, reason: 'after all' })).task.status, 'blocked', 'back to its review');

  // submit refused as the CLI refuses it (nothing reviewed to hand over).
  const sub = await mcp.call('lazy_submit', { id });
  t.ok(sub.isError);
  t.equal(sub.structuredContent.error.code, 'action_not_allowed');
  const cli = await box.l.json('submit', id);
  t.equal(cli.run.code, 4);
  t.equal(sub.structuredContent.error.message, cli.value.error.message, "the CLI's message, word for word");
});

t.test('available_actions over MCP name only actions the surface serves (pair needs a terminal)', async (t) => {
  const box = await agentSandbox();
  const mcp = await mcpInproc(box.sb, [], fakeEnv(box.sb, 'succeed'));
  t.teardown(async () => {
    await mcp.close();
    await box.sb.cleanup();
  });
  const id = await box.l.create('some work', '--accept', 'done');
  t.equal((await box.l('start', id)).code, 0);
  await box.l('wait', id, '--timeout', '60');
  const cli = (await box.l.json('show', id)).value;
  t.ok(cli.available_actions.includes('pair'), 'the CLI offers pair');
  const shown = await mcp.ok('lazy_show', { id });
  t.notOk(shown.available_actions.includes('pair'), 'MCP does not');
  t.same(
    shown.available_actions,
    cli.available_actions.filter((a: string) => a !== 'pair'),
    'and offers everything else the CLI does',
  );
  const tools = new Set((await mcp.client.listTools()).tools.map((x) => x.name));
  for (const a of shown.available_actions) t.ok(tools.has(`lazy_${a}`), `${a} has a tool`);
  const listed = await mcp.ok('lazy_list', {});
  t.notOk(listed.items[0].available_actions.includes('pair'), 'in lists too');
});
