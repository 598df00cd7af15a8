import t from 'tap';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli, gitSync, lazy, sandbox } from '../helpers/env.js';
import { agentSandbox, eventually } from '../helpers/agent.js';
import { colorWanted, renderWith } from '../../lib/output/color.js';
import { renderedText } from '../../lib/output/emit.js';
import { renderInbox } from '../../lib/output/inbox.js';
import { renderReview } from '../../lib/output/review.js';
import type { TaskView } from '../../lib/model/fold.js';

// Issue 14, Output: colour for statuses, attention and a review's ok/FAIL, through node:util.styleText;
// --color=auto|always|never, NO_COLOR, FORCE_COLOR and a terminal decide; JSON is never coloured.

const ESC = '\u001b';
const hasColor = (s: string) => s.includes(`${ESC}[`);

t.test('who decides: --color, then NO_COLOR, then FORCE_COLOR, then the terminal', async (t) => {
  const cases: [Parameters<typeof colorWanted>[0], Record<string, string>, boolean, boolean][] = [
    [undefined, {}, true, true],
    [undefined, {}, false, false],
    ['auto', {}, true, true],
    ['auto', {}, false, false],
    [undefined, { NO_COLOR: '1' }, true, false],
    [undefined, { NO_COLOR: '' }, true, true],
    [undefined, { FORCE_COLOR: '1' }, false, true],
    [undefined, { FORCE_COLOR: '0' }, false, false],
    [undefined, { FORCE_COLOR: '' }, false, false],
    [undefined, { NO_COLOR: '1', FORCE_COLOR: '1' }, true, false],
    ['always', { NO_COLOR: '1' }, false, true],
    ['never', { FORCE_COLOR: '1' }, true, false],
    [undefined, { TERM: 'dumb' }, true, false],
    [undefined, { TERM: 'dumb', FORCE_COLOR: '1' }, true, true],
  ];
  for (const [mode, env, tty, want] of cases)
    t.equal(colorWanted(mode, env, tty), want, `--color=${mode ?? '(none)'} ${JSON.stringify(env)} tty=${tty}`);
});

t.test('the CLI: statuses coloured only when asked, never in JSON; stored escapes stay escaped', async (t) => {
  const sb = sandbox();
  t.teardown(() => sb.cleanup());
  const base = cli(sb, { NO_COLOR: '', FORCE_COLOR: '' });
  t.equal((await base('init')).code, 0);
  const id = await base.create('a goal with \u001b[2Jan escape');
  const plain = await base('list');
  t.notOk(hasColor(plain.stdout), 'off a terminal: no colour');
  const always = await base('list', '--color=always');
  t.match(always.stdout, `${ESC}[2mbacklog${ESC}[22m`, '--color=always paints the status (dim backlog)');
  t.match(always.stdout, '\\u001b[2Jan escape', "the goal's escape is still printed escaped");
  t.equal(always.stdout.split(ESC).length - 1, 2, 'the only escapes are the two of the painted status');
  t.ok(hasColor((await base('show', id, '--color', 'always')).stdout), 'show paints its status line');
  t.ok(hasColor((await cli(sb, { FORCE_COLOR: '1', NO_COLOR: '' })('list')).stdout), 'FORCE_COLOR=1 colours');
  t.notOk(hasColor((await cli(sb, { FORCE_COLOR: '1', NO_COLOR: '1' })('list')).stdout), 'NO_COLOR wins over it');
  t.notOk(hasColor((await cli(sb, { FORCE_COLOR: '1' })('list', '--color=never')).stdout), '--color=never wins');
  t.ok(hasColor((await cli(sb, { NO_COLOR: '1' })('list', '--color=always')).stdout), '--color=always wins');
  t.ok(hasColor((await cli(sb, { NO_COLOR: '1' })('list', '--color')).stdout), 'a bare --color is always');
  t.notOk(hasColor((await cli(sb, { FORCE_COLOR: '1', NO_COLOR: '' })('list', '--no-color')).stdout), '--no-color');
  const json = await base('list', '--json', '--color=always');
  t.notOk(hasColor(json.stdout), 'JSON is never coloured');
  t.equal(JSON.parse(json.stdout)[0].status, 'backlog');
  const bad = await base('list', '--color=sometimes');
  t.equal(bad.code, 2, 'an unknown mode is a usage error');
  t.match(bad.stderr, /Invalid values:[\s\S]*color[\s\S]*sometimes/, 'naming the value and the choices');
});

t.test('lazy diff: git colours it when colour is on, and never otherwise (whatever color.ui says)', async (t) => {
  const sb = sandbox();
  t.teardown(() => sb.cleanup());
  const l = cli(sb);
  await l('init');
  const id = await l.create('diffed');
  gitSync(sb.dir, sb.env, ['checkout', '-q', '-b', `lazy/${id}`]);
  writeFileSync(join(sb.dir, 'new.txt'), 'added line\n');
  gitSync(sb.dir, sb.env, ['add', 'new.txt']);
  gitSync(sb.dir, sb.env, ['commit', '-q', '-m', 'add']);
  gitSync(sb.dir, sb.env, ['checkout', '-q', 'main']);
  gitSync(sb.dir, sb.env, ['config', 'color.ui', 'always']);
  const coloured = await l('diff', id, '--color=always');
  t.equal(coloured.code, 0);
  t.match(
    coloured.stdout,
    `${ESC}[32m+${ESC}[m${ESC}[32madded line`,
    "git's colour for an added line reaches the terminal",
  );
  const plain = await l('diff', id);
  t.match(plain.stdout, '+added line');
  t.notOk(plain.stdout.includes(ESC) || plain.stdout.includes('\\u001b'), 'no colour, even with color.ui=always');
  t.notOk((await l('diff', id, '--json', '--color=always')).stdout.includes('\\u001b'), 'nor in JSON');
});

t.test('attention in the inbox and ok/FAIL in a review are coloured', async (t) => {
  const on = { color: true, tty: true };
  const items = [
    { id: 'aaaa1111', attention: { kind: 'failure', reason: 'boom', since: new Date().toISOString() }, goal: 'g' },
    { id: 'bbbb2222', attention: { kind: 'review', reason: 'done', since: new Date().toISOString() }, goal: 'h' },
  ] as never;
  const inbox = renderedText(items, renderInbox, on);
  t.match(inbox, `${ESC}[31mfailure${ESC}[39m`, 'a failure is red');
  t.match(inbox, `${ESC}[32mreview${ESC}[39m`, 'a review is green');
  const view = {
    id: 'cccc3333',
    revisions: 1,
    session: null,
    pending_violations: [],
    changelog: [],
    turns: [
      {
        sequence: 1,
        role: 'agent',
        kind: 'work',
        content: 'did it',
        details: {
          review: { head: 'a'.repeat(40), base_commit: 'b'.repeat(40), commits: 1, changed_files: [], diffstat: '' },
          commands: [
            { command: 'npm test', exit_code: 0 },
            { command: 'npm run lint', exit_code: 2 },
          ],
        },
      },
    ],
  } as unknown as TaskView;
  const review = renderedText(view, renderReview, on);
  t.match(review, `${ESC}[32mok${ESC}[39m`, 'ok is green');
  t.match(review, /\u001b\[31m\u001b\[1mFAIL\(2\)\u001b\[22m\u001b\[39m npm run lint/, 'FAIL is bold red');
  const off = renderWith({ color: false, tty: true }, () => renderReview(view));
  t.notOk(hasColor(off), 'no colour when off');
  t.match(off, '    ok   npm test', 'the same columns as before when plain');
  t.match(off, '    FAIL(2) npm run lint');
});

t.test("watch's live frames are escaped and coloured as printed results are", async (t) => {
  const box = await agentSandbox();
  t.teardown(async () => {
    await box.l('stop', id);
    await box.sb.cleanup();
  });
  box.scenario('hang-escape');
  const id = await box.l.create('watched \u001b[2Jgoal', '--accept', 'it is watched');
  t.equal((await box.l('start', id)).code, 0);
  await eventually(async () => {
    const rows = (await box.l.json('watch')).value as { last_line: string | null }[];
    return rows[0]?.last_line?.includes('\u001b[2J');
  }, 20_000);
  let frames = 0;
  const r = await lazy(['watch', '--color=always'], {
    cwd: box.sb.dir,
    env: {
      ...box.sb.env,
      FAKE_STATE: join(box.sb.home, 'fake-state'),
      FAKE_LOG: join(box.sb.home, 'fake-log.jsonl'),
      FAKE_SCENARIO: 'hang-escape',
    },
    io: {
      isTTY: { stdin: false, stdout: true, stderr: false },
      outOpen: () => frames++ < 1,
      clock: { now: () => Date.now(), sleep: async () => {}, poll: async () => {} },
    },
  });
  t.equal(r.code, 0);
  const frame = r.stdout.slice(0, r.stdout.indexOf('Ctrl-C'));
  t.ok(frame.startsWith('\u001b[2J\u001b[H'), "the loop's own screen clearing");
  t.match(frame, `${ESC}[36mworking${ESC}[39m`, 'the status painted');
  t.match(frame, 'clearing \\u001b[2Jthe screen', "the agent's escape printed escaped");
  t.equal(frame.split(ESC).length - 1, 4, 'no other escape reached the terminal');
});
