import t from 'tap';
import yargs from 'yargs';
import { CONTRACTS as C, type CommandContract } from '../../lib/ops/contract/index.js';
import { builderOf } from '../../bin/contract.js';
import { globalOptions, globalSpec } from '../../bin/registry.js';
import { GLOBALS, quickArgs } from '../../bin/quick.js';
import { sandbox, cli } from '../helpers/env.js';

// The hot commands' lines read without yargs (bin/quick.ts) must reach the handler exactly as yargs hands them
// over, and every line the quick reader is unsure of must be left to yargs (undefined).

/** What yargs hands this command's handler for these words (parsed as bin/cli.ts sets yargs up). */
async function yargsArgs(c: CommandContract, words: string[]): Promise<Record<string, unknown>> {
  let got: Record<string, unknown> = {};
  const usage = [c.name, ...c.args.filter((a) => a.positional).map((a) => (a.array ? `[${a.name}..]` : `<${a.name}>`))];
  await globalOptions(yargs())
    .middleware((a) => void (a.fields !== undefined && (a.json = true)), true)
    .command({
      command: [usage.join(' '), ...(c.aliases ?? [])],
      describe: 'x',
      builder: builderOf(c) as never,
      handler: (a) => void (got = a),
    })
    .strict()
    .exitProcess(false)
    .fail((msg) => {
      throw new Error(msg);
    })
    .parseAsync([c.name, ...words]);
  return got;
}

const SAME: [CommandContract, string[]][] = [
  [C.show, ['abcd1234']],
  [C.show, ['abcd', '--json']],
  [C.show, ['--json', 'abcd', '--fields', 'id,status']],
  [C.show, ['abcd', '--markdown', '--color', 'never']],
  [C.show, ['abcd', '--color=always', '-C', '/tmp']],
  [C.show, ['0123456789']],
  [C.comment, ['abcd', '-m', 'hello there']],
  [C.comment, ['abcd', '--message=hi', '--json']],
  [C.comment, ['abcd']],
  [C.create, ['fix', 'the', 'thing']],
  [C.create, ['fix', '--accept', 'a', '--accept', 'b', '--tag', 'x', '--prompt', 'p q', '--json']],
  [C.create, ['fix', '--prompt-file', 'f.md', '--parent', 'abcd', '--agent', 'claude', '--model', 'm']],
  [C.create, ['42', 'things']],
  [C.list, []],
  [C.list, ['--all', '--json']],
  [C.list, ['-a', '-s', 'working', '--status', 'backlog', '-t', 'x', '--search', 'y', '--sort', 'updated']],
  [C.list, ['-n', '5', '--tree', '--queued', '--paused', '--parent', 'abcd']],
  [C.list, ['--limit=12', '--fields=id']],
];

t.test('a line the quick reader takes reaches the handler as yargs hands it over', async (t) => {
  for (const [c, words] of SAME) {
    const quick = quickArgs(c, words);
    const line = `${c.name} ${words.join(' ')}`;
    if (!t.ok(quick, `read quickly: ${line}`)) continue;
    const full = await yargsArgs(c, words);
    const given = Object.fromEntries(Object.entries(full).filter(([k, v]) => k !== '$0' && v !== undefined));
    t.same(quick, given, line);
    t.strictSame(Object.keys(quick!).sort(), Object.keys(given).sort(), `the same keys: ${line}`);
  }
});

const UNSURE: [CommandContract, string[]][] = [
  [C.show, []],
  [C.show, ['a', 'b']],
  [C.show, ['abcd', '--bogus']],
  [C.show, ['abcd', '--json', 'true']],
  [C.show, ['abcd', '--json=false']],
  [C.show, ['abcd', '--no-json']],
  [C.show, ['abcd', '--json', '--json']],
  [C.show, ['abcd', '--help']],
  [C.show, ['abcd', '-h']],
  [C.show, ['abcd', '--version']],
  [C.show, ['abcd', '--color', 'sometimes']],
  [C.show, ['abcd', '--color']],
  [C.show, ['abcd', '-C']],
  [C.show, ['abcd', '--', 'x']],
  [C.show, ['abcd', '-jC', 'x']],
  [C.comment, ['abcd', '-m']],
  [C.comment, ['abcd', '-m', '-x']],
  [C.comment, ['abcd', '-m', '']],
  [C.comment, ['abcd', '-m', 'a', '-m', 'b']],
  [C.create, []],
  [C.create, ['x', '--tag', 'a', 'b']],
  [C.create, ['x', '--prompt-file', '-']],
  [C.create, ['x', '--promptFile', 'f']],
  [C.list, ['--limit', 'ten']],
  [C.list, ['--limit', '-1']],
  [C.list, ['--sort', 'size']],
  [C.list, ['extra']],
];

t.test('a line the quick reader is unsure of is left to yargs', async (t) => {
  for (const [c, words] of UNSURE) t.equal(quickArgs(c, words), undefined, `${c.name} ${words.join(' ')}`);
});

t.test("the quick reader's global options are the ones yargs is given", async (t) => {
  const declared = globalSpec().options.filter((o) => o.name !== 'help' && o.name !== 'version');
  t.same(
    GLOBALS.map((g) => [g.name, g.type, g.choices ?? []]),
    declared.map((o) => [o.name, o.type, o.choices ?? []]),
  );
});

t.test('through the CLI: a quick line and a line yargs reads act alike', async (t) => {
  const sb = sandbox();
  t.teardown(sb.cleanup);
  const l = cli(sb);
  const id = (await l.spawn('create', 'quick', 'line')).stdout.trim();
  t.match((await l.spawn('comment', id, '-m', 'hi')).stdout, `${id}: comment added`);
  t.equal(JSON.parse((await l.spawn('show', id, '--fields', 'id')).stdout).id, id);
  // Lines the quick reader leaves to yargs keep yargs' refusals (exit 2, its message).
  const bogus = await l.spawn('show', id, '--bogus', '--json');
  t.equal(bogus.code, 2);
  t.match(JSON.parse(bogus.stdout).error.message, /Unknown argument/);
  t.equal((await l.spawn('comment', id, '-m')).code, 2);
});
