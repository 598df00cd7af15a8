import t from 'tap';
import { agentSandbox, reviewed } from '../helpers/agent.js';
import { gitSync } from '../helpers/env.js';
import { fakeEnv, mcpClient, mcpInproc } from '../helpers/mcp.js';

// issue 13, `lazy mcp` (builder mode): every tool is the CLI's operation, its reply what
// `lazy <command> --json` prints, its commits recorded with actor builder, its errors the CLI's.

const BUILDER_TOOLS = [
  'lazy_list',
  'lazy_show',
  'lazy_inbox',
  'lazy_usage',
  'lazy_create',
  'lazy_comment',
  'lazy_start',
  'lazy_unblock',
  'lazy_answer',
  'lazy_ask',
  'lazy_wait',
  'lazy_accept',
  'lazy_reject',
  'lazy_stop',
  'lazy_resume',
  'lazy_close',
  'lazy_reopen',
  'lazy_follow_up',
  'lazy_repair',
  'lazy_submit',
  'lazy_queue',
  'lazy_unqueue',
  'lazy_pause',
  'lazy_unpause',
  'lazy_edit',
  'lazy_run',
];

/** A CLI document as MCP serves it: the same, but available_actions name no action without a tool (pair). */
const served = (doc: unknown) =>
  JSON.parse(JSON.stringify(doc), (k, v: unknown) =>
    k === 'available_actions' && Array.isArray(v) ? v.filter((a) => a !== 'pair') : v,
  ) as unknown;

t.test('every builder tool runs its lifecycle operation, recorded with actor builder', async (t) => {
  const box = await agentSandbox();
  // Turns: the first work turn, a question after the feedback, the answered turn, the ask, another task's turn.
  const mcp = await mcpClient(box.sb, [], fakeEnv(box.sb, 'succeed,question,succeed,litter,succeed'));
  t.teardown(async () => {
    await mcp.close();
    await box.sb.cleanup();
  });
  const { tools } = await mcp.client.listTools();
  t.same(
    tools.map((x) => x.name),
    BUILDER_TOOLS,
    'tools/list names the builder tools',
  );

  const { task: created } = await mcp.ok('lazy_create', { goal: 'build the thing', accept: ['done'], tags: ['mcp'] });
  const id: string = created.id;
  t.match(created, { goal: 'build the thing', status: 'backlog', acceptance: ['done'], tags: ['mcp'] });
  t.equal(created.created_by.actor, 'builder', 'the task was created by the builder');
  const shown = await mcp.ok('lazy_show', { id: id.slice(0, 5) });
  t.same(
    shown,
    served((await box.l.json('show', id)).value),
    'lazy_show is `lazy show --json` (an id prefix works), its actions the ones MCP serves',
  );
  const commented = await mcp.ok('lazy_comment', { id, message: 'mind the tests' });
  t.match(commented.task.turns.at(-1), { kind: 'comment', actor: 'builder', content: 'mind the tests' });

  const started = await mcp.ok('lazy_start', { id });
  t.equal(started.task.status, 'working', 'lazy_start returns once the turn runs');
  t.ok(started.run?.id, 'and names the run');
  const waited = await mcp.ok('lazy_wait', { id, timeout: 60 });
  t.match(waited, { task: { id, status: 'blocked' } }, 'lazy_wait returns {task} where it landed');
  const inbox = await mcp.ok('lazy_inbox');
  t.match(
    inbox.items,
    [{ id, attention: { kind: 'review' } }],
    'lazy_inbox lists the task waiting for review (an array, as items)',
  );
  const inboxText = (await mcp.call('lazy_inbox')).content[0]!.text;
  t.same(JSON.parse(inboxText), served((await box.l.json('inbox')).value), 'its text is `lazy inbox --json`');

  await mcp.ok('lazy_unblock', { id, message: 'add a changelog entry' });
  const asked = await mcp.ok('lazy_wait', { id, timeout: 60 });
  t.ok(asked.task.available_actions.includes('answer'), 'the next turn asked a question');
  const answered = await mcp.ok('lazy_answer', { id, message: 'approach A' });
  t.equal(answered.task.status, 'working', 'lazy_answer starts the next turn');
  t.equal((await mcp.ok('lazy_wait', { id, timeout: 60 })).task.status, 'blocked');
  const ask = await mcp.ok('lazy_ask', { id, question: 'what is the answer?', timeout: 60 });
  t.match(ask.answer?.content, /^answer: 42/, "lazy_ask returns the agent's answer");

  const accepted = await mcp.ok('lazy_accept', { id });
  t.equal(accepted.task.status, 'complete', 'lazy_accept merges without a prompt: the call is the consent');
  t.ok(accepted.commit, 'and names the squash commit');

  const other = (await mcp.ok('lazy_create', { goal: 'a detour', accept: ['done'] })).task.id;
  await mcp.ok('lazy_start', { id: other });
  await mcp.ok('lazy_wait', { id: other, timeout: 60 });
  const rejected = await mcp.ok('lazy_reject', { id: other, reason: 'not needed' });
  t.equal(rejected.task.status, 'abandoned');
  const listed = await mcp.ok('lazy_list', { all: true });
  t.same(
    listed.items.map((r: any) => [r.id, r.status]).sort(),
    [
      [id, 'complete'],
      [other, 'abandoned'],
    ].sort(),
    'lazy_list (all) lists both tasks',
  );
  t.same((await mcp.ok('lazy_list', {})).items, [], 'and without all, no terminal task');
  const usage = await mcp.ok('lazy_usage', { by: 'agent' });
  t.same(usage, (await box.l.json('usage', '--by', 'agent')).value, "lazy_usage is lazy usage's report");
  t.same(
    usage.groups.map((g: any) => [g.key, g.turns]),
    [['fake', 5]],
    'every agent turn counted: the two tasks, the question, the answer and the ask',
  );
  const badDate = await mcp.call('lazy_usage', { since: 'last week' });
  t.equal(badDate.isError, true);
  t.match(badDate.structuredContent.error, { code: 'usage', message: /--since/ });

  const task = (await box.l.json('show', id)).value;
  const byBuilder = task.changelog.filter((c: any) => c.actor === 'builder').map((c: any) => c.trigger);
  for (const trigger of ['create', 'start', 'unblock', 'answer', 'accept'])
    t.ok(byBuilder.includes(trigger), `the ${trigger} is recorded with actor builder (${byBuilder.join(', ')})`);
  t.notOk(
    task.changelog.some((c: any) => c.actor === 'human'),
    'no change is recorded as a human',
  );
  const log = await box.l('log', id);
  t.match(log.stdout, /builder/, '`lazy log` shows the builder');
  t.notMatch(mcp.stderr(), /"jsonrpc"/, 'nothing of the protocol leaked to stderr');
});

t.test("a tool error is the CLI's JSON error, flagged isError", async (t) => {
  const box = await agentSandbox();
  const mcp = await mcpInproc(box.sb);
  t.teardown(async () => {
    await mcp.close();
    await box.sb.cleanup();
  });
  const missing = await mcp.call('lazy_show', { id: 'zzzz' });
  t.equal(missing.isError, true);
  const cli = await box.l.json('show', 'zzzz');
  t.equal(cli.run.code, 3);
  t.same(missing.structuredContent, cli.value, 'task_not_found: the same code, message and details as the CLI');
  t.same(JSON.parse(missing.content[0]!.text), cli.value, 'and the text is that JSON');
  t.equal(missing.structuredContent.error.code, 'task_not_found');

  const id = await box.l.create('not reviewed yet');
  const refused = await mcp.call('lazy_accept', { id });
  const cliRefused = await box.l.json('accept', id, '--yes');
  t.equal(refused.isError, true);
  t.same(refused.structuredContent, cliRefused.value, 'a refused accept is the CLI error');
  t.match(refused.structuredContent.error, {
    code: 'action_not_allowed',
    details: { action: 'accept', status: 'backlog', available_actions: ['start', 'close', 'comment', 'edit'] },
  });
  t.equal((await box.l.json('show', id)).value.status, 'backlog', 'and nothing changed');

  await box.l.create('tagged one', '--tag', 'ui', '--tag', 'auth');
  const picked = await mcp.ok('lazy_list', { tag: ['ui', 'auth'], search: 'TAGGED', limit: 5 });
  t.same(
    picked.items.map((r: { goal: string }) => r.goal),
    ['tagged one'],
    "lazy_list takes list's filters",
  );
  t.same((await mcp.ok('lazy_inbox', { search: 'nothing like it' })).items, [], 'and lazy_inbox too');
  const badSort = await mcp.call('lazy_list', { sort: 'sideways' });
  t.equal(badSort.structuredContent.error.code, 'usage', 'a sort the CLI refuses is refused the same way');

  const noText = await mcp.call('lazy_comment', { id, message: '  ' });
  t.match(noText.structuredContent.error, { code: 'usage', message: "lazy_comment: argument 'message' is required" });
  const stray = await mcp.call('lazy_show', { id, verbose: true });
  t.match(stray.structuredContent.error, { code: 'usage', message: /unknown argument 'verbose'/ });
  const wrongType = await mcp.call('lazy_wait', { id, timeout: 'soon' });
  t.match(wrongType.structuredContent.error, {
    code: 'usage',
    message: "lazy_wait: argument 'timeout' must be a number",
  });
  const unknown = await mcp.call('lazy_frobnicate', {});
  t.match(unknown, { isError: true, structuredContent: { error: { code: 'usage' } } }, 'an unknown tool');
  // Said as the CLI says an unknown command: the name, and the nearest one served.
  const typo = (await mcp.call('lazy_sohw', {})).structuredContent.error;
  t.match(typo, {
    message: /^unknown tool 'lazy_sohw'; the nearest is 'lazy_show'/,
    details: { nearest: 'lazy_show' },
  });
});

t.test("accept through MCP keeps the CLI's guard: a head nobody reviewed is refused", async (t) => {
  const box = await agentSandbox();
  const mcp = await mcpInproc(box.sb);
  t.teardown(async () => {
    await mcp.close();
    await box.sb.cleanup();
  });
  const id = await reviewed(box, 'a reviewed task');
  const worktree: string = (await box.l.json('show', id)).value.worktree;
  gitSync(worktree, box.sb.env, ['commit', '-q', '--allow-empty', '-m', 'a commit after the review']);
  const refused = await mcp.call('lazy_accept', { id });
  t.equal(refused.isError, true);
  t.match(refused.structuredContent.error, { code: 'unreviewed_head', details: { unreviewed_count: 1 } });
  t.same(refused.structuredContent, (await box.l.json('accept', id, '--yes')).value, 'the same refusal as the CLI');
  t.equal((await box.l.json('show', id)).value.status, 'blocked', 'nothing was merged');
  t.equal(gitSync(box.sb.dir, box.sb.env, ['log', '-1', '--format=%s', 'main']).trim(), 'initial commit');
});
