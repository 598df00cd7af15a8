import type { Argv } from 'yargs';

// main() spells `lazy help <command>` as `lazy <command> --help` before yargs parses
// (helpArgv in bin/cli.ts); this module gives the command its place in help, completion and man.
export const command = 'help [command]';
export const describe = 'Show help for a command (also: lazy <command> --help)';
export const builder = (y: Argv) =>
  y.positional('command', { type: 'string', describe: 'the command to explain (default: all of them)' });

export const handler = () => undefined;
