import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sandbox, cli } from '../helpers/env.js';
import { sanitizeLine, sanitizeProse } from '../../lib/core/sanitize.js';
import { concurrent } from '../helpers/concurrent.js';

const NOTE = /\n\n\[lazy: \d+ control characters? (was|were) replaced with printable \\uXXXX escapes\]$/;

const test = concurrent(4);

test('the sanitizer escapes C0 (but tab, LF, CR), DEL and C1', async (t) => {
  t.equal(sanitizeLine('a\u0000b'), 'a\\u0000b', 'NUL becomes six printable characters');
  t.equal(sanitizeLine('\u0001\u001b[31m\u007f\u0085\u009f'), '\\u0001\\u001b[31m\\u007f\\u0085\\u009f');
  t.equal(sanitizeLine('tab\tlf\ncr\r'), 'tab\tlf\ncr\r', 'tab, LF and CR pass through');
  t.equal(sanitizeLine('naïve 日本 🎉 \u00a0'), 'naïve 日本 🎉 \u00a0', 'ordinary text passes byte-for-byte');
  t.equal(sanitizeProse('plain'), 'plain', 'no note when nothing changed');
  t.match(sanitizeProse('a\u0000b'), NOTE);
  t.ok(sanitizeProse('a\u0000b').startsWith('a\\u0000b'));
});

test('NUL and control characters in every text intake are escaped, never rejected', async (t) => {
  const sb = sandbox();
  t.teardown(sb.cleanup);
  const l = cli(sb);
  const ctl = 'x\u0001y\u001bz\u007f\u0085';
  const esc = 'x\\u0001y\\u001bz\\u007f\\u0085';

  // argv cannot carry NUL, so NUL arrives through stdin and files; other controls through argv.
  const c1 = await l.json(
    'create',
    `goal ${ctl}`,
    '--prompt',
    `prompt ${ctl}`,
    '--accept',
    `crit ${ctl}`,
    '--tag',
    `tag${ctl}`,
  );
  t.equal(c1.run.code, 0, 'create accepts control characters');
  const v = c1.value.task;
  t.equal(v.goal, `goal ${esc}`, 'goal: escaped, no note (single-line field)');
  t.match(v.prompt, new RegExp(`^prompt ${esc.replace(/\\/g, '\\\\')}`));
  t.match(v.prompt, NOTE, 'prompt: escaped with a note');
  t.match(v.acceptance[0], NOTE, 'criterion: escaped with a note');
  t.equal(v.tags[0], `tag${esc}`, 'tag: escaped, no note');

  const file = join(sb.home, 'prompt.txt');
  writeFileSync(file, 'from a file \u0000 with NUL');
  const c2 = await l.json('create', 'file prompt', '--prompt-file', file);
  t.match(c2.value.task.prompt, /^from a file \\u0000 with NUL/);
  t.match(c2.value.task.prompt, NOTE);

  const id = v.id;
  t.equal((await l.input('comment \u0000 NUL\n', 'comment', id)).code, 0, 'comment with NUL on stdin');
  t.equal((await l('comment', id, '-m', `comment ${ctl}`)).code, 0, 'comment with controls in -m');
  const turns = (await l.json('show', id)).value.turns;
  t.match(turns[0].content, /^comment \\u0000 NUL\n/);
  t.match(turns[0].content, NOTE);
  t.match(turns[1].content, new RegExp(`^comment ${esc.replace(/\\/g, '\\\\')}`));

  const closed = await l.json('close', id, '-m', `reason ${ctl}`);
  t.match(closed.value.task.changelog.at(-1).reason, NOTE, 'close reason');
  const reopened = await l.json('reopen', id, '--reason', `again ${ctl}`);
  t.match(reopened.value.task.changelog.at(-1).reason, NOTE, 'reopen reason');

  // Everything stored still reads back cleanly.
  t.equal((await l('doctor')).code, 0);
});

test('feedback, answers and questions are sanitized before they reach the agent', async (t) => {
  const { agentSandbox } = await import('../helpers/agent.js');
  const { sb, l, scenario, invocations } = await agentSandbox();
  t.teardown(sb.cleanup);
  scenario('succeed,question,succeed,succeed');
  const id = await l.create('x', '--accept', 'y');
  await l('start', id);
  await l('wait', id, '--timeout', '30');
  await l.input('feedback \u0000 with NUL\n', 'unblock', id);
  await l('wait', id, '--timeout', '30');
  await l('answer', id, '-m', 'answer \u0007 bell');
  await l('wait', id, '--timeout', '30');
  const asked = await l.json('ask', id, '-m', 'question \u001b[2J');
  const turns = (await l.json('show', id)).value.turns;
  t.match(
    turns.find((x: any) => x.kind === 'feedback').content,
    /^feedback \\u0000 with NUL\n[\s\S]*\[lazy: 1 control character was replaced/,
  );
  t.match(turns.find((x: any) => x.kind === 'answer').content, /^answer \\u0007 bell/);
  t.match(asked.value.question, /^question \\u001b\[2J/);
  const prompts = invocations().map((i) => i.prompt);
  t.ok(
    prompts.every((p) => !/[\u0000\u0007\u001b]/.test(p)),
    'no raw control character reached an agent argv',
  );
  t.ok(prompts[1]!.includes('feedback \\u0000 with NUL'), 'the escaped text was delivered');
  const reject = await l.json('reject', id, '-m', 'no \u0001 thanks');
  t.match(reject.value.task.changelog.at(-1).reason, /^no \\u0001 thanks/);
});

test('--json escapes C1 controls as the text output does', async (t) => {
  const sb = sandbox();
  t.teardown(sb.cleanup);
  const l = cli(sb);
  const r = await l.json('show', 'ab\u009b31mcd\u0085');
  t.equal(r.run.code, 3);
  t.notMatch(r.run.stdout, /[\u007f-\u009f]/, 'no raw C1 byte reaches the terminal');
  t.match(r.run.stdout, /\\u009b31mcd\\u0085/);
  t.match(r.value.error.message, /ab\u009b31mcd\u0085/, 'and the JSON still parses to the same text');
});
