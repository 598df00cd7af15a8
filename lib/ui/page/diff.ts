import parseDiff from 'parse-diff';
import { empty, h } from './dom.js';

// A unified diff rendered per file, as a code host shows it: a header with the path and its counts, then a table
// of lines with the old and new line numbers. parse-diff does the parsing; every line goes in as text.

type File = parseDiff.File;
type Change = parseDiff.Change;

/** The file's name as shown: a rename is `old → new`, a deletion its old name. */
function pathOf(f: File): string {
  const from = f.from && f.from !== '/dev/null' ? f.from : null;
  const to = f.to && f.to !== '/dev/null' ? f.to : null;
  if (from && to && from !== to) return `${from} → ${to}`;
  return to ?? from ?? '(unknown file)';
}

function fileKind(f: File): string | null {
  if (f.new) return 'added';
  if (f.deleted) return 'deleted';
  if (f.from && f.to && f.from !== f.to && f.from !== '/dev/null' && f.to !== '/dev/null') return 'renamed';
  return null;
}

const num = (n: number | null) => h('td', { class: 'ln', 'data-ln': n ?? '' }, n === null ? '' : String(n));

function changeRow(c: Change): HTMLTableRowElement {
  // parse-diff gives "\ No newline at end of file" the type of the line before it: it is a note, not a change.
  if (c.content.startsWith('\\'))
    return h(
      'tr',
      { class: 'line note' },
      num(null),
      num(null),
      h('td', { class: 'marker' }),
      h('td', { class: 'code' }, c.content.slice(1).trim()),
    );
  // parse-diff keeps the leading +, - or space; the marker column shows it, the code cell the rest.
  const marker = c.content.slice(0, 1);
  const text = c.content.slice(1);
  const cls = c.type === 'add' ? 'add' : c.type === 'del' ? 'del' : 'ctx';
  const [oldLn, newLn] = c.type === 'add' ? [null, c.ln] : c.type === 'del' ? [c.ln, null] : [c.ln1, c.ln2];
  return h(
    'tr',
    { class: `line ${cls}` },
    num(oldLn),
    num(newLn),
    h('td', { class: 'marker', 'aria-hidden': 'true' }, marker),
    h('td', { class: 'code' }, text),
  );
}

function fileTable(f: File): HTMLElement {
  if (!f.chunks.length) return empty(f.deleted || f.new ? 'Empty file.' : 'No text changes (binary or mode only).');
  const body = h('tbody');
  for (const chunk of f.chunks) {
    body.append(h('tr', { class: 'hunk' }, h('td', { colspan: 4 }, chunk.content)));
    for (const c of chunk.changes) body.append(changeRow(c));
  }
  return h('div', { class: 'diff-scroll' }, h('table', { class: 'diff-table' }, body));
}

function fileBlock(f: File): HTMLElement {
  const kind = fileKind(f);
  const path = pathOf(f);
  return h(
    'details',
    { class: 'diff-file', open: true, 'data-path': path },
    h(
      'summary',
      { class: 'diff-file-head' },
      h('span', { class: 'diff-path' }, path),
      kind ? h('span', { class: `diff-kind kind-${kind}` }, kind) : null,
      h(
        'span',
        { class: 'diff-counts' },
        h('span', { class: 'adds' }, `+${f.additions}`),
        ' ',
        h('span', { class: 'dels' }, `−${f.deletions}`),
      ),
    ),
    fileTable(f),
  );
}

/** The diff's files, one `.diff-file` each; a note when the text holds no change. */
export function renderDiff(text: string): HTMLElement {
  const files = parseDiff(text);
  if (!files.length) return empty('No changes.');
  const adds = files.reduce((n, f) => n + f.additions, 0);
  const dels = files.reduce((n, f) => n + f.deletions, 0);
  return h(
    'div',
    { class: 'diff' },
    h(
      'p',
      { class: 'diff-total' },
      `${files.length} file${files.length === 1 ? '' : 's'} changed, `,
      h('span', { class: 'adds' }, `+${adds}`),
      ' ',
      h('span', { class: 'dels' }, `−${dels}`),
    ),
    files.map(fileBlock),
  );
}
