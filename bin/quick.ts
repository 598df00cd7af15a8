import type { ArgContract, CommandContract } from '../lib/ops/contract/index.js';
import { COLOR_MODES, colorMode } from '../lib/output/color.js';

// The hot commands' command lines read without yargs. Loading and building yargs cost each of them about as much
// as its own work (docs/benchmarks.md), so a plain line (`lazy show <id> --json`, `lazy comment <id> -m TEXT`,
// `lazy list --status working`) is read here, from the same contracts yargs is given. This reader only accepts:
// anything it is not sure yargs reads the same way (an unknown or repeated option, a missing value, a value that
// looks like an option, `--`, help, …) is left to yargs, so every error and every odd spelling stays yargs'.
// test/cli/quick.test.ts holds both readers to the same arguments.

/** The options every command takes: bin/registry.ts declares these to yargs (help and version are yargs' own). */
export const GLOBALS: readonly ArgContract[] = [
  { name: 'json', type: 'boolean', describe: 'machine-readable output on stdout' },
  { name: 'C', type: 'string', describe: 'run as if lazy was started in this directory' },
  { name: 'fields', type: 'string', describe: 'print only these fields of the JSON output (a,b.c; implies --json)' },
  {
    name: 'color',
    type: 'string',
    choices: COLOR_MODES,
    describe: 'colour text output: auto (on a terminal; NO_COLOR and FORCE_COLOR decide first), always, never',
  },
];

export type QuickArgs = Record<string, unknown> & { _: string[] };

const camel = (name: string) => name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

/** A value as yargs hands it over, or undefined when this reader is unsure of it. */
function valueOf(arg: ArgContract, word: string | undefined): unknown {
  if (word === undefined || word === '' || word.startsWith('-')) return undefined;
  if (arg.choices && !arg.choices.includes(word)) return undefined;
  if (arg.type === 'number') return /^(0|[1-9]\d{0,14})$/.test(word) ? Number(word) : undefined;
  return arg.name === 'color' ? colorMode(word) : word;
}

/** The option a word names (`--name`, `--alias`, `-a`), if this reader knows it. */
function optionOf(options: readonly ArgContract[], word: string): ArgContract | undefined {
  const name = word.startsWith('--') ? word.slice(2) : /^-[a-zA-Z]$/.test(word) ? word.slice(1) : undefined;
  return name === undefined ? undefined : options.find((o) => o.name === name || o.alias === name);
}

/** Reads the words after the command's name into values and positionals; undefined when unsure. */
function readWords(options: readonly ArgContract[], words: readonly string[]) {
  const values = new Map<ArgContract, unknown>();
  const positionals: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    if (!word.startsWith('-')) {
      positionals.push(word);
      continue;
    }
    const eq = word.startsWith('--') ? word.indexOf('=') : -1;
    const opt = optionOf(options, eq < 0 ? word : word.slice(0, eq));
    if (!opt || (values.has(opt) && !opt.array)) return undefined;
    let value: unknown = true;
    if (opt.type === 'boolean') {
      // yargs reads `--all true` as a value and `--all=x` as one: leave those to it.
      if (eq >= 0 || words[i + 1] === 'true' || words[i + 1] === 'false') return undefined;
    } else {
      value = valueOf(opt, eq >= 0 ? word.slice(eq + 1) : words[++i]);
      // An array option takes every word up to the next option: leave that to yargs.
      if (value === undefined || (opt.array && words[i + 1] !== undefined && !words[i + 1]!.startsWith('-')))
        return undefined;
    }
    values.set(opt, opt.array ? [...((values.get(opt) as unknown[]) ?? []), value] : value);
  }
  return { values, positionals };
}

/** The arguments yargs would hand this command's handler for these words, or undefined when unsure. */
export function quickArgs(contract: CommandContract, words: readonly string[]): QuickArgs | undefined {
  const options = [...GLOBALS, ...contract.args.filter((a) => !a.positional)];
  const read = readWords(options, words);
  if (!read) return undefined;
  const args: QuickArgs = { _: [contract.name] };
  const set = (a: ArgContract, v: unknown) => {
    for (const key of new Set([a.name, camel(a.name), ...(a.alias ? [a.alias] : [])])) args[key] = v;
  };
  let rest = read.positionals;
  for (const p of contract.args.filter((a) => a.positional)) {
    const taken = p.array ? rest : rest.slice(0, 1);
    if (!taken.length) return undefined; // yargs' own message names what is missing
    set(p, p.array ? taken : taken[0]);
    rest = rest.slice(taken.length);
  }
  if (rest.length) return undefined;
  for (const o of options) {
    const v = read.values.get(o) ?? o.default;
    if (v !== undefined) set(o, v);
    if (o.conflicts && read.values.has(o) && options.some((c) => c.name === o.conflicts && read.values.has(c)))
      return undefined;
  }
  if (args.fields !== undefined) args.json = true;
  return args;
}
