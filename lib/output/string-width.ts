import { width } from './format.js';

// Stands in for the string-width package inside the bundle (scripts/build.mjs aliases
// it). cliui, which yargs uses for help text, imports string-width, whose module top
// level constructs Intl.Segmenter: ~23 ms measured on every command, help or not.
const ANSI = /\u001b\[[0-9;]*[A-Za-z]/g;

export default function stringWidth(s: string): number {
  return width(s.replace(ANSI, ''));
}
