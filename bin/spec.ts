import type { Argv } from 'yargs';

// What each command declares to yargs, read back as data: help's "missing <id>" message,
// shell completion and the man page all come from the same definitions the parser uses.

export interface ArgSpec {
  name: string;
  describe?: string;
  /** Short names (-m) and other long ones. */
  aliases: string[];
  type?: string;
  choices?: readonly string[];
  array: boolean;
}

export interface CommandSpec {
  name: string;
  aliases: string[];
  /** The usage line yargs was given: `show <id>`. */
  usage: string;
  /** false for the hidden internal commands. */
  describe: string | false;
  positionals: (ArgSpec & { required: boolean; variadic: boolean })[];
  options: ArgSpec[];
}

export interface CommandModule {
  command: string | readonly string[];
  describe: string | false;
  builder: (y: Argv) => unknown;
}

interface OptionLike {
  describe?: string;
  alias?: string | readonly string[];
  type?: string;
  choices?: readonly string[];
  array?: boolean;
}

const argOf = (name: string, o: OptionLike): ArgSpec => ({
  name,
  describe: o.describe,
  aliases: o.alias === undefined ? [] : [o.alias].flat(),
  type: o.type,
  choices: o.choices,
  array: !!o.array,
});

/** Runs a command's builder against a recorder instead of yargs: every positional and option it declares. */
export function specOf(mod: CommandModule): CommandSpec {
  const [usage, ...aliases] = [mod.command].flat();
  const words = usage!.split(' ');
  const declared = new Map<string, OptionLike>();
  const options: ArgSpec[] = [];
  const recorder: Argv = new Proxy({} as Argv, {
    get:
      (_t, method) =>
      (key: string, o: OptionLike = {}) => {
        if (method === 'positional') declared.set(key, o);
        else if (method === 'option') options.push(argOf(key, o));
        return recorder;
      },
  });
  mod.builder(recorder);
  const positionals = words.slice(1).map((w) => {
    const name = w.replace(/[<>[\]]/g, '').replace(/\.\.$/, '');
    return { ...argOf(name, declared.get(name) ?? {}), required: w.startsWith('<'), variadic: w.includes('..') };
  });
  return { name: words[0]!, aliases, usage: usage!, describe: mod.describe, positionals, options };
}

/** The command a spec list knows by this name or alias. */
export const findSpec = (specs: readonly CommandSpec[], word: string | undefined) =>
  word === undefined ? undefined : specs.find((s) => s.name === word || s.aliases.includes(word));

/** The words of an argv that are not options, skipping the values of the global options that take one. */
export function positionalWords(argv: readonly string[], valued: ReadonlySet<string>): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const w = argv[i]!;
    if (w === '--') return [...out, ...argv.slice(i + 1)];
    if (!w.startsWith('-') || w === '-') out.push(w);
    else if (!w.includes('=') && valued.has(w.replace(/^-+/, ''))) i++;
  }
  return out;
}
