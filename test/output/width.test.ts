import t from 'tap';
import stringWidth from '../../lib/output/string-width.js';
import { table, truncate, width } from '../../lib/output/format.js';
import { paintStatus, renderWith } from '../../lib/output/color.js';

// Issue 14, Output: display width with get-east-asian-width, clusters found without Intl.Segmenter.
// Before, ✅ counted 1, a family emoji 8 and a zero-width space 3, so table columns misaligned.

const CASES: [string, string, number][] = [
  ['ascii', 'abc', 3],
  ['empty', '', 0],
  ['✅ (East Asian wide)', '✅', 2],
  ['⚡ (wide)', '⚡', 2],
  ['family emoji, a ZWJ sequence', '👨‍👩‍👧‍👦', 2],
  ['rainbow flag, ZWJ + VS16', '🏳️‍🌈', 2],
  ['zero-width space between letters', 'a\u200bb', 2],
  ['zero-width joiner alone', '\u200d', 0],
  ['byte order mark / zero-width no-break space', 'a\ufeff', 1],
  ['soft hyphen', 'a\u00adb', 2],
  ['CJK', '日本語', 6],
  ['Hangul', '한국어', 6],
  ['fullwidth Latin', 'ｆｕｌｌ', 8],
  ['halfwidth katakana', 'ｶﾀ', 2],
  ['combining acute accent', 'e\u0301', 1],
  ['several combining marks', 'a\u0300\u0301\u0302', 1],
  ['heart, text presentation', '❤', 1],
  ['heart + VS16: emoji presentation', '❤️', 2],
  ['smiley + VS15: text presentation', '☺\ufe0e', 1],
  ['thumbs up with a skin tone', '👍🏽', 2],
  ['a flag (two regional indicators)', '🇯🇵', 2],
  ['two flags', '🇯🇵🇫🇷', 4],
  ['keycap sequence', '1️⃣', 2],
  ['ambiguous counts narrow', 'Ω', 1],
  ['mixed', 'ok ✅ 日本 👨‍👩‍👧', 2 + 1 + 2 + 1 + 4 + 1 + 2],
  ['colour codes take no columns', 'x\u001b[31mred\u001b[39m', 4],
];

t.test('display width of each case', async (t) => {
  for (const [what, s, w] of CASES) {
    t.equal(width(s), w, `${what}: ${JSON.stringify(s)} is ${w} columns`);
    t.equal(stringWidth(s), w, `${what}: the string-width stand-in agrees (yargs help uses it)`);
  }
});

t.test('painted text is as wide as its words', async (t) => {
  const painted = renderWith({ color: true, tty: true }, () => paintStatus('working'));
  t.not(painted, 'working', 'the status was painted');
  t.equal(width(painted), 7);
});

t.test('truncate never splits a cluster and fits its width', async (t) => {
  const family = '👨‍👩‍👧‍👦';
  const cut = truncate(`${family}${family}${family}abc`, 6);
  t.equal(cut, `${family}${family}…`, 'whole ZWJ sequences, then the ellipsis');
  t.equal(width(cut), 5);
  t.equal(truncate('日本語のテキスト', 7), '日本語…', 'a wide character that would overflow is left out');
  t.equal(truncate('e\u0301e\u0301e\u0301e\u0301', 3), 'e\u0301e\u0301…', 'marks stay with their letter');
});

t.test('a table with emoji, CJK and zero-width cells aligns its columns', async (t) => {
  // The first cells, with their widths known here (not measured by the code under test).
  const first: [string, number][] = [
    ['✅', 2],
    ['👨‍👩‍👧‍👦', 2],
    ['a\u200bb', 2],
    ['日本', 4],
    ['e\u0301', 1],
    ['🇯🇵', 2],
    ['plain', 5],
  ];
  const rows = first.map(([c], i) => [c, `b${i}`, `c${i}`]);
  const text = renderWith({ color: false, tty: true }, () => table(['A', 'B', 'C'], rows, 80));
  const lines = text.split('\n');
  t.equal(lines.length, rows.length + 1, 'a header and a line per row');
  // Where column B starts, in display columns: the cell's known width plus the spaces after it.
  const starts = lines.slice(1).map((l, i) => {
    const [cell, w] = first[i]!;
    return w + l.slice(cell.length, l.indexOf(`b${i}`)).length;
  });
  starts.unshift(lines[0]!.indexOf('B'));
  t.same(new Set(starts).size, 1, `column B starts at one column on every line: ${starts.join(',')}`);
  t.equal(starts[0], 7, 'as wide as its widest cell (plain) and two spaces');
});
