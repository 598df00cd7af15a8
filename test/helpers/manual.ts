import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './env.js';

// The documentation tests hold the code to: README.md is the front door, docs/*.md the reference.
// A test that pins a table reads the file that holds it (manual('docs/commands.md')); one that pins
// every mention of a fact reads them all (wholeManual()).

/** One Markdown file of the project, by its path from the root. */
export const manual = (path: string): string => readFileSync(join(ROOT, path), 'utf8');

/** README.md, then every docs/*.md in name order. */
export const manualFiles = (): string[] => [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`),
];

/** README.md and docs/*.md as one text. */
export const wholeManual = (): string => manualFiles().map(manual).join('\n');
