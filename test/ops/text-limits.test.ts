import t from 'tap';
import { sandbox, cli, gitSync, type Sandbox } from '../helpers/env.js';
import { mcpInproc } from '../helpers/mcp.js';
import { MAX_TEXT_BYTES } from '../../lib/core/fsutil.js';
import { MAX_DOCUMENT_BYTES } from '../../lib/store/yaml.js';

// Issue 27, the stored-text limit: every text a person gives lazy to store is checked before
// anything is written (exit 2, usage; a tool error over MCP), and so is the whole document it
// lands in, so no command writes a task that every later command would find unreadable.

const over = (n = MAX_TEXT_BYTES + 1) => 'x'.repeat(n);
const taskRefs = (sb: Sandbox) =>
  gitSync(sb.dir, sb.env, ['for-each-ref', '--format=%(refname)', 'refs/lazy/tasks/']).split('\n').filter(Boolean);

t.test('create refuses an over-limit goal (the CLI and MCP), tag or agent name, writing nothing', async (t) => {
  const sb = sandbox('lazy-text');
  t.teardown(sb.cleanup);
  const l = cli(sb);
  // Ten 120 KB words: each argument is small, the goal they make is 1.2 MB.
  const words = Array.from({ length: 10 }, (_, i) => String.fromCharCode(97 + i).repeat(120 * 1024));
  const goal = await l.json('create', ...words);
  t.equal(goal.run.code, 2, 'exit 2');
  t.match(goal.value.error, {
    code: 'usage',
    message: new RegExp(`^the goal is ${10 * 120 * 1024 + 9} bytes; the limit is ${MAX_TEXT_BYTES}`),
    details: { limit: MAX_TEXT_BYTES },
  });
  for (const [what, args] of [
    ['a tag', ['tagged', '--tag', over()]],
    ['the agent name', ['named', '--agent', over()]],
  ] as const) {
    const r = await l.json('create', ...args);
    t.equal(r.run.code, 2, `${what}: exit 2`);
    t.match(r.value.error?.message, new RegExp(`^${what} is ${MAX_TEXT_BYTES + 1} bytes`));
  }

  const mcp = await mcpInproc(sb);
  t.teardown(() => mcp.close());
  const r = await mcp.call('lazy_create', { goal: over(MAX_TEXT_BYTES * 2) });
  t.equal(r.isError, true, 'over MCP, a tool error');
  t.match(r.structuredContent.error, { code: 'usage', message: /^the goal is \d+ bytes; the limit is/ });

  t.same(taskRefs(sb), [], 'nothing was written');
  t.equal((await l('doctor')).code, 0, 'and doctor finds the repository healthy');
});

t.test('edit, close and reopen check their texts too', async (t) => {
  const sb = sandbox('lazy-text');
  t.teardown(sb.cleanup);
  const l = cli(sb);
  const id = await l.create('a task', '--accept', 'done');
  const tip = () => gitSync(sb.dir, sb.env, ['rev-parse', `refs/lazy/tasks/${id}`]).trim();
  const before = tip();
  for (const [what, args] of [
    ['the goal', ['edit', id, '--goal', over()]],
    ['a criterion', ['edit', id, '--accept', over()]],
    ['a tag', ['edit', id, '--tag', over()]],
    ['the agent name', ['edit', id, '--agent', over()]],
    ['the reason', ['close', id, '-m', over()]],
  ] as const) {
    const r = await l.json(...args);
    t.equal(r.run.code, 2, `${args[0]} ${args[2]}: exit 2`);
    t.match(r.value.error?.message, new RegExp(`^${what} is ${MAX_TEXT_BYTES + 1} bytes`));
  }
  t.equal(tip(), before, 'nothing was written');
  t.equal((await l('close', id)).code, 0);
  const reopen = await l.json('reopen', id, '--reason', over());
  t.equal(reopen.run.code, 2, 'reopen --reason: exit 2');
  t.equal((await l.json('show', id)).value.status, 'abandoned', 'the task is where it was');
});

t.test('a document over the limit from texts each within it is refused before it is written', async (t) => {
  const sb = sandbox('lazy-text');
  t.teardown(sb.cleanup);
  const l = cli(sb);
  const part = 'word '.repeat(80 * 1024); // 400 KB
  const r = await l.json('create', 'three large texts', '--prompt', part, '--accept', part, '--accept', part);
  t.equal(r.run.code, 2, 'exit 2');
  t.match(r.value.error, {
    code: 'usage',
    message: new RegExp(
      `task.yaml would be at least \\d+ bytes; a stored document holds at most ${MAX_DOCUMENT_BYTES}`,
    ),
    details: { file: 'task.yaml', limit: MAX_DOCUMENT_BYTES },
  });
  // Within the limit as text, over it as YAML: each line of a block is indented.
  const lines = 'a\n'.repeat(200 * 1024);
  const encoded = await l.json('create', 'many short lines', '--prompt', lines, '--accept', lines.slice(0, 200 * 1024));
  t.equal(encoded.run.code, 2, 'exit 2');
  t.match(encoded.value.error?.message, /task\.yaml would be \d+ bytes; a stored document holds at most/);
  t.same(taskRefs(sb), [], 'nothing was written');

  const id = await l.create('grows by criteria');
  for (let i = 0; i < 2; i++) t.equal((await l('edit', id, '--accept', part)).code, 0, `criterion ${i + 1} fits`);
  const third = await l.json('edit', id, '--accept', part);
  t.equal(third.run.code, 2, 'the one that would take the document over the limit is refused');
  t.equal((await l.json('show', id)).value.acceptance.length, 2, 'and the task still reads, as it was');
  t.equal((await l('doctor')).code, 0, 'and doctor finds the repository healthy');
});
