import { reportError } from '../lib/output/emit.js';
import { guardPipes, outputFailure, writeErr } from './pipes.js';
import { inCall, type Call } from './call.js';
import { processCall, joinDashValues } from './io.js';
import { usageError } from '../lib/core/errors.js';
import { terminalColumns } from '../lib/core/env.js';
import { COMMANDS, commandSpecs, globalOptions, HELP_DESCRIBE, valuedOptions, VERSION_DESCRIBE } from './registry.js';
import { findSpec, positionalWords } from './spec.js';
import { nearest } from '../lib/core/nearest.js';
import { CONTRACTS, type CommandContract } from '../lib/ops/contract/index.js';
import { quickArgs } from './quick.js';

// The CLI entry: yargs parses, each command module calls one lifecycle operation.
// bin/lazy.cjs loads the bundle of this file and calls main().

declare const LAZY_VERSION: string;

/** The real port, for entry points that adjust it before calling main() (test/fixtures/slow-accept.cjs). */
export { processCall };

/** Runs one command line; `call` is the port it talks through (this process's, unless given). */
export async function main(argv: string[], call?: Call): Promise<number> {
  // Only lazy's own words: after `--` they are a command's (lazy run <id> -- cmd --json).
  const own = argv.includes('--') ? argv.slice(0, argv.indexOf('--')) : argv;
  const wantsJson = own.includes('--json') || own.some((s) => s === '--fields' || s.startsWith('--fields='));
  if (!call) guardPipes();
  const c = call ?? processCall(wantsJson);
  c.afterDashes = argv.length > own.length ? argv.slice(own.length + 1) : [];
  const code = await inCall(c, () => (isCompletion(argv) ? completeWords(argv, c) : parse(argv, c, wantsJson)));
  if (call) return code;
  const failure = await outputFailure();
  if (failure) writeErr(`lazy: output was not written: ${failure}\n`);
  return failure && code === 0 ? 1 : code;
}

const EPILOG =
  'A task is named by its id or any unique prefix of 4+ characters. Exit codes and more: man lazy ' +
  '(git lazy --help). Shell completion: lazy completion bash|zsh|fish.';

/** Global options whose value is the next word (`-C dir`, `--fields id`), read from their definitions. */
let valued: Set<string> | undefined;
const globalValued = () => (valued ??= valuedOptions(undefined));

/** Shell completion's request (bin/completion.ts): answered without yargs, the store or a reconcile. */
const isCompletion = (argv: string[]) => argv[0] === '__complete' || argv.includes('--get-yargs-completions');

async function completeWords(argv: string[], call: Call): Promise<number> {
  const { complete } = await import('./completion.js');
  // yargs' own protocol (--get-yargs-completions $0 words…) is answered the same way, without its --C and --a.
  const words = argv[0] === '__complete' ? argv.slice(1) : argv.slice(argv.indexOf('--get-yargs-completions') + 2);
  call.io.out(await complete(words[0] === '--' ? words.slice(1) : words, call.cwd));
  return 0;
}

/**
 * `lazy`, `lazy help` and `lazy help <command>` are spelled as --help; a command help does not
 * know is a usage error, as it is everywhere else.
 */
function helpArgv(argv: string[]): string[] {
  const words = positionalWords(argv, globalValued());
  if (!words.length) return argv.some((w) => /^--(help|version)$|^-h$/.test(w)) ? argv : [...argv, '--help'];
  if (words[0] !== 'help') {
    if (!findSpec(commandSpecs(), words[0])) throw unknownCommand(words[0]!);
    return argv;
  }
  const named = words[1];
  if (named !== undefined && !findSpec(commandSpecs(), named)) throw unknownCommand(named);
  const rest = argv.filter((w, i) => i !== argv.indexOf('help'));
  return [...rest, '--help'];
}

/** A word that names no command, said so with the nearest one (yargs' "Unknown argument" names neither). */
function unknownCommand(word: string): Error {
  const names = commandSpecs()
    .filter((s) => s.describe !== false)
    .flatMap((s) => [s.name, ...s.aliases]);
  const near = nearest(word, names)!;
  return usageError(`unknown command '${word}'; the nearest is '${near}'`, {
    command: word,
    nearest: near,
    hint: 'lazy --help lists the commands',
  });
}

/** Help fits the terminal: COLUMNS (as the shell exports it), else the terminal's width, else 80; never wider than 120. */
function helpWidth(call: Call): number {
  const cols = Number(call.io.env.COLUMNS);
  const width = Number.isInteger(cols) && cols >= 40 ? cols : call.io.isTTY.stdout ? terminalColumns() : undefined;
  return Math.min(width ?? 80, 120);
}

/** yargs' "Not enough non-option arguments: got N" names no argument: name the one that is missing. */
function missingArgument(msg: string, argv: string[]): Error | undefined {
  const got = /^Not enough non-option arguments: got (\d+)/.exec(msg);
  const spec = got && findSpec(commandSpecs(), positionalWords(argv, globalValued())[0]);
  const arg = spec?.positionals.filter((p) => p.required)[Number(got![1])];
  if (!spec || !arg) return undefined;
  const name = arg.variadic ? `${arg.name}..` : arg.name;
  return usageError(`missing <${name}>${arg.describe ? `: ${arg.describe}` : ''}`, {
    command: spec.name,
    argument: arg.name,
    hint: `lazy ${spec.name} --help shows its arguments`,
  });
}

type Usage = { cacheHelpMessage?: () => void };
type Internals = { getInternalMethods?: () => { getUsageInstance?: () => Usage | undefined } };

/**
 * yargs formats a command's whole help text each time a handler starts, in case a later failure shows it. lazy
 * reports its own errors and never shows that copy; formatting it cost every command about as much as the
 * rest of its start-up, so it is skipped. False when this yargs keeps its usage elsewhere (the cost is back).
 */
export function skipHelpCache(parser: unknown): boolean {
  const usage = (parser as Internals).getInternalMethods?.().getUsageInstance?.();
  if (typeof usage?.cacheHelpMessage !== 'function') return false;
  usage.cacheHelpMessage = () => {};
  return true;
}

/** The commands whose plain lines bin/quick.ts reads without yargs: the single-task ones and list, run most. */
const QUICK = ['show', 'list', 'comment', 'create'];

/** The handler of a hot command, called with the arguments bin/quick.ts read, or undefined: yargs reads the line. */
function quickHandler(argv: string[]): (() => unknown) | undefined {
  const contract = (Object.values(CONTRACTS) as CommandContract[]).find(
    (c) => QUICK.includes(c.name) && (c.name === argv[0] || c.aliases?.includes(argv[0]!)),
  );
  const args = contract && quickArgs(contract, argv.slice(1));
  const mod = args && COMMANDS.find((m) => [m.command].flat()[0]!.split(' ')[0] === contract.name);
  return mod && (() => (mod.handler as (a: unknown) => unknown)(args));
}

async function parse(argv: string[], call: Call, wantsJson: boolean): Promise<number> {
  const quick = quickHandler(argv);
  if (quick) {
    try {
      await quick();
    } catch (e) {
      return reportError(call.io, wantsJson, e);
    }
    return call.exitCode;
  }
  let args = argv;
  // Loaded only when a line needs it: yargs is about a third of what a command would otherwise load.
  const { default: yargs } = await import('yargs');
  const y = yargs();
  skipHelpCache(y);
  const parser = globalOptions(y)
    .scriptName('lazy')
    .usage('$0 <command> [options]\n\nRun AI coding agents on tasks whose whole state lives in git.')
    .middleware((a) => void (a.fields !== undefined && (a.json = true)), true)
    .command(COMMANDS as never)
    .epilog(EPILOG)
    .demandCommand(1, 'name a command (lazy --help lists them)')
    .strict()
    .recommendCommands()
    .help('help', HELP_DESCRIBE)
    .alias('help', 'h')
    .version('version', VERSION_DESCRIBE, typeof LAZY_VERSION === 'string' ? LAZY_VERSION : 'dev')
    .wrap(helpWidth(call))
    .exitProcess(false)
    .fail((msg, err) => {
      throw (
        err ??
        missingArgument(msg, args) ??
        usageError(msg, { hint: 'lazy --help lists the commands; lazy <command> --help their options' })
      );
    });
  try {
    args = helpArgv(argv);
    // With a callback yargs hands help and version text back instead of printing it.
    let printed = '';
    await parser.parseAsync(joinDashValues(args), {}, (_e, _a, output) => {
      printed = output;
    });
    if (printed) call.io.out(printed.endsWith('\n') ? printed : `${printed}\n`);
  } catch (e) {
    return reportError(call.io, wantsJson, e);
  }
  return call.exitCode;
}
