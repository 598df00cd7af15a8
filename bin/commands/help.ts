import { CONTRACTS as C } from '../../lib/ops/contract/index.js';
import { commandOf } from '../contract.js';

// main() spells `lazy help <command>` as `lazy <command> --help` before yargs parses
// (helpArgv in bin/cli.ts); this module gives the command its place in help, completion and man.
export const { command, describe, builder } = commandOf(C.help);

export const handler = () => undefined;
