import t from 'tap';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ROOT } from './helpers/env.js';

// Ref, branch and refspec names are built in one module (lib/core/names.ts): a `refs/…` name, a
// `lazy/<id>` branch, a refspec or a ref file's path assembled anywhere else in lib/ or bin/ fails
// here. Prose that mentions a namespace ("Fetch refs/lazy/* and merge it") is no name and passes.

/** The files that may build names, each with why. */
const ALLOWED: Record<string, string> = {
  'lib/core/names.ts': 'the names module',
};

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/**
 * The string pieces of a source: each quoted literal whole, each template literal as its chunks between
 * interpolations. Comments are skipped; a `/`
 * where an operand is expected starts a regular expression, whose text is skipped too.
 */
export function stringPieces(src: string): { text: string; line: number }[] {
  const out: { text: string; line: number }[] = [];
  const lineAt = (i: number) => src.slice(0, i).split('\n').length;
  let i = 0;
  let prev = ''; // the last significant character outside strings and comments
  const depth: number[] = []; // brace depth inside each open template interpolation
  while (i < src.length) {
    const c = src[i]!;
    if (c === '/' && src[i + 1] === '/') i = src.indexOf('\n', i) < 0 ? src.length : src.indexOf('\n', i);
    else if (c === '/' && src[i + 1] === '*') i = src.indexOf('*/', i + 2) + 2;
    else if (c === '/' && (prev === '' || /[(,=:[!&|?{};+\-*%<>~^]/.test(prev))) {
      let inClass = false;
      for (i++; i < src.length && (src[i] !== '/' || inClass); i++) {
        if (src[i] === '\\') i++;
        else if (src[i] === '[') inClass = true;
        else if (src[i] === ']') inClass = false;
      }
      i++;
      prev = 'x';
    } else if (c === "'" || c === '"') {
      let j = i + 1;
      for (; j < src.length && src[j] !== c; j++) if (src[j] === '\\') j++;
      out.push({ text: src.slice(i + 1, j), line: lineAt(i) });
      i = j + 1;
      prev = 'x';
    } else if (c === '`' || (c === '}' && depth.length && depth.at(-1) === 0)) {
      if (c === '}') depth.pop();
      let j = i + 1;
      for (; j < src.length && src[j] !== '`' && !(src[j] === '$' && src[j + 1] === '{'); j++) if (src[j] === '\\') j++;
      out.push({ text: src.slice(i + 1, j), line: lineAt(i) });
      if (src[j] === '$') {
        depth.push(0);
        i = j + 2;
        prev = '(';
      } else {
        i = j + 1;
        prev = 'x';
      }
    } else {
      if (c === '{' && depth.length) depth[depth.length - 1]!++;
      else if (c === '}' && depth.length) depth[depth.length - 1]!--;
      if (!/\s/.test(c)) prev = /[\w$)\]]/.test(c) ? 'x' : c;
      i++;
    }
  }
  return out;
}

/** Why a string piece builds a name, or null for prose and everything else. */
export function nameShaped(text: string): string | null {
  if (text === 'refs' || text === 'lazy/') return `'${text}'`;
  if (/--force-with-lease=/.test(text)) return 'a lease refspec';
  for (const m of text.matchAll(/refs\/[^\s'"`),;]*/g)) {
    const before = text.slice(0, m.index);
    const atStart = /^(?:ref: |branch |[+^:]|.*\.\.)?$/.test(before);
    const atEnd = m.index + m[0].length === text.length;
    if (atStart || atEnd || /:refs\//.test(m[0]) || /[+^:]$/.test(before)) return `'${m[0]}'`;
  }
  if (/(^|[^\w.-])lazy\/$/.test(text)) return 'a task branch lazy/<id>';
  return null;
}

/** Pieces the checker must refuse, and prose that mentions a namespace, which it must let pass. */
const SHAPED =
  'refs/heads/|refs|lazy/|+refs/lazy/*:refs/remotes/x/lazy/*| refs/heads/lazy/|ref: refs/heads/|git log refs/lazy/tasks/|--force-with-lease=|branch lazy/';
const PROSE = [
  'Fetch refs/lazy/* and merge it',
  'the shared settings (refs/lazy/config) have not been trusted',
  'a ref under refs/lazy/tasks/, every change',
  '.lazy/config.yaml',
];

t.test('the checker tells names from prose', async (t) => {
  for (const name of SHAPED.split('|')) t.ok(nameShaped(name), name);
  for (const prose of PROSE) t.equal(nameShaped(prose), null, prose);
  const pieces = stringPieces("const a = `x ${f('refs/y')} lazy/${id}`; // 'refs/z'\nconst r = /'refs\\/w/;");
  t.same(
    pieces.map((p) => p.text),
    ['x ', 'refs/y', ' lazy/', ''],
  );
});

t.test('lib/ and bin/ build no ref, branch or refspec name outside the names module', async (t) => {
  const found: string[] = [];
  for (const dir of ['lib', 'bin'])
    for (const file of files(join(ROOT, dir))) {
      const rel = relative(ROOT, file);
      if (ALLOWED[rel]) continue;
      for (const p of stringPieces(readFileSync(file, 'utf8'))) {
        const why = nameShaped(p.text);
        if (why) found.push(`${rel}:${p.line}: ${why}`);
      }
    }
  t.same(found, [], 'use lib/core/names.ts');
  t.ok(Object.keys(ALLOWED).length <= 2, 'names are built in at most two files');
});
