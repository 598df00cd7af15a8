import t from 'tap';
import { code, fenced, prBody, prose } from '../../lib/model/pr-body.js';
import { lastUrl, submissionOf } from '../../lib/model/submission.js';
import type { TaskView, TurnView } from '../../lib/model/fold.js';

// The PR body is made from stored text an agent or another clone wrote: it must not drive a
// terminal, and nothing in it may break the Markdown around it.

const turn = (over: Partial<TurnView>): TurnView => ({
  sequence: 1,
  id: 'aaaaaaaa',
  clock: 2,
  role: 'agent',
  kind: 'result',
  actor: 'agent',
  person: null,
  content: '',
  timestamp: '2026-01-01T00:00:00.000Z',
  feedback: null,
  session: null,
  run: null,
  details: null,
  ...over,
});

const view = (turns: TurnView[]) =>
  ({ id: 'abcd2345', goal: 'fix it', acceptance: ['tests pass'], turns }) as unknown as TaskView;

t.test('file names, commands and the diff stat cannot close what holds them', async (t) => {
  t.equal(code('a`b'), '``a`b``', 'inline code delimiter is longer than any backtick run inside');
  t.equal(code('`x'), '`` `x ``', 'a leading backtick is padded');
  t.equal(code('two\nlines'), '`two lines`', 'one line');
  const f = fenced('x ```` y');
  t.ok(f.startsWith('`````text\n') && f.endsWith('\n`````'), 'the fence outgrows a backtick run inside');
  t.equal(fenced('plain'), '```text\nplain\n```');
});

t.test('prose keeps its Markdown but cannot swallow the rest of the body', async (t) => {
  t.equal(prose('see\n```js\nopen'), 'see\n```js\nopen\n```', 'an unclosed fence is closed');
  t.equal(prose('```\nclosed\n```\nafter'), '```\nclosed\n```\nafter', 'a closed one is left alone');
  t.equal(prose('a <!-- never closed'), 'a &lt;!-- never closed', 'an unclosed HTML comment is disarmed');
  t.equal(prose('a <!-- closed --> b'), 'a <!-- closed --> b');
  t.equal(prose('bell\u0007 esc\u001b[31m'), 'bell\\u0007 esc\\u001b[31m', 'controls are escaped');
});

t.test('the body carries every section, from the latest review', async (t) => {
  const review = turn({
    content: 'Did it.\n```\nunclosed',
    details: {
      review: {
        head: 'f'.repeat(40),
        base_commit: 'e'.repeat(40),
        commits: 2,
        changed_files: ['src/a`b.ts'],
        diffstat: ' src/a`b.ts | 2 +-\n 1 file changed',
      },
      commands: [{ command: 'npm test', exit_code: 1 }],
      risks: ['flaky\nsometimes'],
    },
  });
  const body = prBody(view([review, turn({ kind: 'submission', role: 'system' })]));
  for (const part of [
    '## Goal\n\nfix it',
    '## Acceptance criteria\n\n- tests pass',
    '## Summary\n\nDid it.\n```\nunclosed\n```',
    '2 commit(s) on `lazy/abcd2345` at `ffffffffffff`',
    '- ``src/a`b.ts``',
    '### Diff stat\n\n```text\n src/a`b.ts | 2 +-\n 1 file changed\n```',
    '## Commands run\n\n- `npm test`: exit 1',
    '## Risks\n\n- flaky\n  sometimes',
    'Lazy-Task: abcd2345',
  ])
    t.ok(body.includes(part), `has ${JSON.stringify(part)}`);
  const empty = prBody(view([]));
  t.match(empty, '## Summary\n\n_no review yet_', 'a task without a review says so');
  t.match(empty, '## Commands run\n\n_none reported_');
});

t.test('the submission is derived from the latest submission turn; junk details read as absent', async (t) => {
  t.equal(submissionOf([turn({})]), null, 'none without a submission turn');
  const s = (details: TurnView['details']) => submissionOf([turn({ role: 'system', kind: 'submission', details })]);
  t.match(s({ url: 'https://x.example/pull/1', remote: 'origin', branch: 'lazy/x', head: 'h' }), {
    url: 'https://x.example/pull/1',
    ok: true,
    error: null,
  });
  t.match(s({ url: 'javascript:alert(1)', error: 'exit 1' }), { url: null, ok: false, error: 'exit 1' });
  t.match(s({ url: 7 as never, remote: ['x'] as never }), { url: null, remote: null });
  t.equal(lastUrl('see https://a.example/x.\nopened https://b.example/pull/2).'), 'https://b.example/pull/2');
  t.equal(lastUrl('no address here'), null);
});
