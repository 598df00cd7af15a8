import t from 'tap';
import { agentSandbox, eventually, reviewed } from '../helpers/agent.js';
import { fakeEnv, mcpInproc } from '../helpers/mcp.js';

// issue 32: lazy_follow_up and lazy_repair, the builder tools of lazy follow-up and lazy repair, with their options,
// results (lazy <command> --json) and refusals.

t.test('lazy_follow_up (a prompt or a command) and lazy_repair as tools', async (t) => {
  const box = await agentSandbox();
  const mcp = await mcpInproc(box.sb, [], fakeEnv(box.sb, 'succeed'));
  t.teardown(async () => {
    await mcp.close();
    await box.sb.cleanup();
  });
  const id = await reviewed(box, 'tool rounds');
  t.equal((await box.l('accept', id, '--yes')).code, 0);
  // A task whose branch is gone for good (closed with --delete-branch) is refused in the CLI's words.
  const gone = await reviewed(box, 'gone for good');
  t.equal((await box.l('close', gone, '--delete-branch')).code, 0);
  const refused0 = await mcp.call('lazy_follow_up', { id: gone, command: 'true' });
  t.match(refused0.structuredContent, { error: { code: 'action_not_allowed', message: /branch lazy\/\w+ is gone/ } });
  const neither = await mcp.call('lazy_follow_up', { id });
  t.match(neither.structuredContent, { error: { code: 'usage', message: /message .* or command/ } });
  const cmd = await mcp.ok('lazy_follow_up', { id, command: 'echo via-mcp' });
  t.match(cmd, { task: { id, status: 'complete' }, run: { kind: 'follow_up' } });
  t.match(cmd.task.turns.at(-1), {
    details: { commands: [{ command: 'echo via-mcp', exit_code: 0, output: 'via-mcp' }] },
  });
  const agent = await mcp.ok('lazy_follow_up', { id, message: 'one more' });
  t.equal(agent.task.status, 'working');
  await eventually(async () => (await box.l.json('show', id)).value.status === 'complete', 30_000, 'round 2 back');
  const refused = await mcp.call('lazy_repair', { id, message: 'fix' });
  t.match(refused.structuredContent, { error: { code: 'action_not_allowed', details: { status: 'complete' } } });

  const b = await reviewed(box, 'to repair');
  const r = await mcp.ok('lazy_repair', { id: b, message: 'tidy the worktree' });
  t.match(r, { task: { status: 'working' }, run: { kind: 'repair' } });
  const v = await eventually(
    async () => {
      const x = (await box.l.json('show', b)).value;
      return x.status === 'blocked' ? x : undefined;
    },
    30_000,
    'the repair back',
  );
  t.equal(v.changelog.at(-1).trigger, 'round_end');
});
