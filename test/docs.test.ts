import t from 'tap';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ROOT } from './helpers/env.js';
import { manual, manualFiles } from './helpers/manual.js';

// README.md is a front door: what lazy is, the set-up, a quick start, the commands in a line each, and
// links. The reference lives in docs/. Every relative link in the docs names a file that exists, and an
// anchor into a Markdown file names one of its headings.

const FILES = ['ARCHITECTURE.md', 'CONTRIBUTING.md', ...manualFiles()];

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
const slug = (heading: string) =>
  heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');

/** Markdown text without its fenced code blocks, where a bracket is code, not a link. */
const prose = (text: string) => text.replace(/^```[\s\S]*?^```/gm, '');

const anchors = (text: string) => new Set([...prose(text).matchAll(/^#{1,6} (.+)$/gm)].map((m) => slug(m[1]!.trim())));

t.test('README.md is a front door of at most 400 lines', async (t) => {
  const lines = manual('README.md').split('\n').length - 1;
  t.ok(lines <= 400, `README.md has ${lines} lines`);
});

t.test('every relative link in the docs points to a file that exists, and an anchor to a heading', async (t) => {
  let links = 0;
  for (const file of FILES) {
    const text = readFileSync(join(ROOT, file), 'utf8');
    for (const m of prose(text).matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = m[1]!;
      if (/^[a-z]+:/i.test(target)) continue;
      links++;
      const [path, anchor] = target.split('#') as [string, string | undefined];
      const resolved = path ? join(ROOT, dirname(file), path) : join(ROOT, file);
      t.ok(existsSync(resolved), `${file}: ${target} exists`);
      if (anchor && resolved.endsWith('.md') && existsSync(resolved))
        t.ok(anchors(readFileSync(resolved, 'utf8')).has(anchor), `${file}: ${target} names a heading`);
    }
  }
  t.ok(links > 20, `the docs link to each other (${links} relative links)`);
});
