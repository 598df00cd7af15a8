import type { Argv, Options, PositionalOptions } from 'yargs';
import type { ArgContract, CommandContract } from '../lib/ops/contract/index.js';

// A command's yargs definition, generated from its contract (lib/ops/contract/): the usage line, its
// description, and a builder that declares each argument as the contract has it. The MCP tool's inputSchema
// comes from the same contract (lib/mcp/schema.ts).

/** `<id>`, `[remote]`, `<ids..>`, `[goal..]`. */
const word = (a: ArgContract) => {
  const name = a.array ? `${a.name}..` : a.name;
  return a.required ? `<${name}>` : `[${name}]`;
};

/** What yargs is told of an argument: only the keys the contract sets (yargs' help reads their presence). */
export function yargsOptions(a: ArgContract): Options & PositionalOptions {
  const o: Options & PositionalOptions = {};
  if (a.alias !== undefined) o.alias = a.alias;
  if (a.type !== undefined) o.type = a.type;
  if (a.array) o.array = true;
  if (a.choices !== undefined) o.choices = a.choices;
  if (a.default !== undefined) o.default = a.default;
  if (a.conflicts !== undefined) o.conflicts = a.conflicts;
  o.describe = a.describe;
  return o;
}

/** The builder: positionals, then options, in the contract's order. */
export const builderOf =
  (c: CommandContract) =>
  (y: Argv): Argv =>
    c.args.reduce(
      (y, a) => (a.positional ? y.positional(a.name, yargsOptions(a)) : y.option(a.name, yargsOptions(a))),
      y,
    );

/** command, describe and builder of a command module (bin/spec.ts's CommandModule), from its contract. */
export function commandOf(c: CommandContract) {
  const usage = [c.name, ...c.args.filter((a) => a.positional).map(word)].join(' ');
  return {
    command: c.aliases?.length ? [usage, ...c.aliases] : usage,
    describe: c.describe,
    builder: builderOf(c),
  };
}
