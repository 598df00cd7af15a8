import t from 'tap';
import { commandSpecs } from '../../bin/registry.js';
import { findSpec, specOf, type CommandSpec } from '../../bin/spec.js';
import { commandOf } from '../../bin/contract.js';
import { builderTools } from '../../lib/mcp/builder.js';
import { inputSchemaOf } from '../../lib/mcp/schema.js';
import {
  CONTRACTS,
  toolName,
  type CliArgs,
  type CommandContract,
  type ToolArgs,
} from '../../lib/ops/contract/index.js';

// Issue 29: one contract per command (lib/ops/contract/) declares its arguments once; the CLI's yargs
// definition and the builder tool's inputSchema are both generated from it, so a flag added to one
// surface is on the other (or says why not: cliOnly).

const contracts: CommandContract[] = Object.values(CONTRACTS);

/** What the parser is told, as bin/spec.ts reads it back, written out from the contract alone. */
function specFromContract(c: CommandContract): Omit<CommandSpec, 'usage'> {
  const arg = (a: CommandContract['args'][number]) => ({
    name: a.name,
    describe: a.describe,
    aliases: a.alias === undefined ? [] : [a.alias],
    type: a.type,
    choices: a.choices,
    array: !!a.array,
  });
  return {
    name: c.name,
    aliases: [...(c.aliases ?? [])],
    describe: c.describe,
    positionals: c.args
      .filter((a) => a.positional)
      .map((a) => ({ ...arg(a), required: !!a.required, variadic: !!a.array })),
    options: c.args.filter((a) => !a.positional).map(arg),
  };
}

t.test('every command the CLI parses declares exactly its contract', async (t) => {
  t.same(
    commandSpecs()
      .map((s) => s.name)
      .sort(),
    contracts.map((c) => c.name).sort(),
    'a contract for each command, and no other',
  );
  for (const c of contracts) {
    const spec = findSpec(commandSpecs(), c.name);
    if (!spec) {
      t.fail(`${c.name}: a contract with no command`);
      continue;
    }
    const { usage: _, ...parsed } = spec;
    t.same(parsed, specFromContract(c), `lazy ${c.name}: its arguments are its contract's`);
  }
});

t.test("every builder tool's inputSchema is generated from its command's contract", async (t) => {
  const served = contracts.filter((c) => c.tool);
  t.same(
    builderTools.map((x) => x.name).sort(),
    served.map((c) => `lazy_${c.name.replace(/-/g, '_')}`).sort(),
    'a builder tool for each contract that names one, and no other',
  );
  for (const tool of builderTools) {
    const c = served.find((x) => `lazy_${x.name.replace(/-/g, '_')}` === tool.name)!;
    t.same(tool.inputSchema, inputSchemaOf(c), `${tool.name}: the schema of lazy ${c.name}'s contract`);
    t.equal(tool.description, c.tool!.description, `${tool.name}: its contract's description`);
    t.equal(tool.reconcile, c.reconcile, `${tool.name}: reconciles as lazy ${c.name} does`);
  }
});

t.test('CLI arguments and tool arguments map one to one, modulo the declared names', async (t) => {
  for (const c of contracts.filter((x) => x.tool)) {
    const tool = builderTools.find((x) => x.name === `lazy_${c.name.replace(/-/g, '_')}`)!;
    const onBoth = c.args.filter((a) => a.cliOnly === undefined);
    const names = onBoth.map(toolName);
    t.same(Object.keys(tool.inputSchema.properties).sort(), [...names].sort(), `${tool.name}: one argument per flag`);
    t.equal(new Set(names).size, names.length, `${tool.name}: no two flags share a tool argument`);
    for (const n of names) t.match(n, /^[a-z]+(_[a-z]+)*$/, `${tool.name}: ${n} is snake_case`);
    for (const a of c.args.filter((x) => x.cliOnly !== undefined))
      t.equal(a.tool, undefined, `lazy ${c.name} --${a.name}: CLI-only, so no tool form`);
    if (c.tool!.order) t.same([...c.tool!.order].sort(), [...names].sort(), `${tool.name}: its order names each`);
  }
});

t.test('a flag added to a contract appears on both surfaces', async (t) => {
  const c: CommandContract = {
    ...CONTRACTS.reopen,
    args: [...CONTRACTS.reopen.args, { name: 'dry-run', type: 'boolean', describe: 'say what would happen' }],
  };
  const spec = specOf({ ...commandOf(c) });
  t.ok(
    spec.options.some((o) => o.name === 'dry-run'),
    'the CLI parses --dry-run',
  );
  t.same(
    inputSchemaOf(c).properties.dry_run,
    { type: 'boolean', description: 'say what would happen' },
    'the tool takes dry_run',
  );
  t.notSame(specFromContract(c), specFromContract(CONTRACTS.reopen), 'and the check above sees the difference');
});

t.test("the handlers' argument types come from the contract too (checked by tsc)", async (t) => {
  const tool: ToolArgs<typeof CONTRACTS.unblock> = { id: 'abcd', message: 'go on', approve_files: ['a'] };
  // @ts-expect-error follow is CLI-only: the tool has no such argument
  t.equal(tool.follow, undefined);
  const cli: CliArgs<typeof CONTRACTS.close> = { id: 'abcd', deleteBranch: true };
  // @ts-expect-error the CLI's is message (-m); reason is the tool's name for it
  t.equal(cli.reason, undefined);
  t.equal(cli.deleteBranch, true, 'yargs hands kebab-case flags over in camelCase');
});
