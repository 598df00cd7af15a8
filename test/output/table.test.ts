import t from 'tap';
import { cli, lazy, sandbox } from '../helpers/env.js';
import { table, width } from '../../lib/output/format.js';
import { renderWith } from '../../lib/output/color.js';
import { renderInbox } from '../../lib/output/inbox.js';

// Issue 14, Output: piped output is never truncated. Off a terminal a table prints whole cells,
// tab-separated, one row a line and no header, as gh does; on a terminal it keeps its aligned
// columns and fits the width. Before, a piped `lazy list` cut goals to 120 columns.

const LONG = `a long goal ${'word '.repeat(60)}end`;
const piped = { color: false, tty: false };
const terminal = { color: false, tty: true };

t.test('table() off a terminal: no header, whole cells, tabs between, nothing padded', async (t) => {
  const rows = [
    ['abcd1234', 'working', LONG],
    ['efgh5678', 'blocked', 'two\nlines\tand a tab'],
  ];
  const text = renderWith(piped, () => table(['ID', 'STATUS', 'GOAL'], rows, 40));
  t.same(text.split('\n'), [`abcd1234\tworking\t${LONG}`, 'efgh5678\tblocked\ttwo lines and a tab']);
});

t.test('table() on a terminal: a header, aligned columns, the last cut to fit', async (t) => {
  const rows = [
    ['abcd1234', 'working', LONG],
    ['efgh5678', 'blocked', 'short'],
  ];
  const lines = renderWith(terminal, () => table(['ID', 'STATUS', 'GOAL'], rows, 60)).split('\n');
  t.equal(lines[0], 'ID        STATUS   GOAL');
  t.ok(
    lines.every((l) => width(l) <= 60),
    'every line fits 60 columns',
  );
  t.match(lines[1], /^abcd1234 {2}working {2}a long goal .*…$/, 'the goal is cut, and says so');
  t.equal(lines[2], 'efgh5678  blocked  short');
});

t.test('table() on a terminal measures 300,000 rows without spreading them into one call', async (t) => {
  const rows = Array.from({ length: 300_000 }, (_, i) => [String(i), 'backlog', 'goal']);
  const lines = renderWith(terminal, () => table(['ID', 'STATUS', 'GOAL'], rows, 60)).split('\n');
  t.equal(lines.length, 300_001);
  t.equal(lines[1], '0       backlog  goal', 'padded to the widest id, 6 digits');
});

t.test('lazy list and list --tree, piped: every goal and tag whole', async (t) => {
  const sb = sandbox();
  t.teardown(() => sb.cleanup());
  const l = cli(sb);
  await l('init');
  const tags = 'one-rather-long-tag,another-long-tag';
  const id = await l.create(LONG, '--tag', 'one-rather-long-tag', '--tag', 'another-long-tag');
  const out = (await l('list')).stdout;
  t.equal(out.split('\n').filter(Boolean).length, 1, 'no header: one line for the one task');
  const cells = out.trimEnd().split('\t');
  t.equal(cells.length, 5, 'id, status, updated, tags, goal');
  t.same([cells[0], cells[1], cells[3], cells[4]], [id, 'backlog', tags, LONG], 'whole cells');
  t.ok(width(out.trimEnd()) > 120, 'longer than the 120 columns it used to be cut to');
  t.match((await l('list', '--tree')).stdout, LONG, 'the tree prints the whole goal too');
  const onTerminal = await lazy(['list'], {
    cwd: sb.dir,
    env: { ...sb.env, COLUMNS: '80' },
    io: { isTTY: { stdin: false, stdout: true, stderr: false } },
  });
  const lines = onTerminal.stdout.trimEnd().split('\n');
  t.match(lines[0], /^ID {8}STATUS {3}UPDATED {2}TAGS {22}GOAL$/, 'on a terminal: the header');
  t.ok(
    lines.every((line) => width(line) <= 80),
    'and every line fits the terminal',
  );
  t.match(lines[1], /one-rather-long-tag,ano… /, 'tags cut to 24 columns there');
});

t.test('inbox, piped: the time as stored (ISO), as list prints it; on a terminal, how long ago', async (t) => {
  const since = '2026-01-02T03:04:05.000Z';
  const items = [
    {
      id: 'abcd1234',
      goal: 'g',
      status: 'blocked',
      available_actions: [],
      action_conditions: [],
      attention: { kind: 'review', reason: 'r', since },
    },
  ];
  t.same(renderWith(piped, () => renderInbox(items)).split('\t'), ['abcd1234', 'review', since, 'r — g']);
  t.match(
    renderWith(terminal, () => renderInbox(items)),
    /\d+d ago/,
  );
});
