import t from 'tap';
import { sandbox, lazySpawn, cli } from '../helpers/env.js';
import { commandSpecs, globalSpec } from '../../bin/registry.js';
import { specOf, type CommandSpec } from '../../bin/spec.js';

// Help and discovery: every way of asking prints help and exits 0, every argument is
// described, help fits the terminal, and a missing argument names itself.

const visible = () => commandSpecs().filter((s) => s.describe !== false);

/** Every positional and option of these specs that has no description, as `cmd <arg>` / `cmd --opt`. */
const undescribed = (specs: CommandSpec[]) =>
  specs.flatMap((s) => [
    ...s.positionals.filter((p) => !p.describe?.trim()).map((p) => `${s.name} <${p.name}>`),
    ...s.options.filter((o) => !o.describe?.trim()).map((o) => `${s.name} --${o.name}`),
  ]);

t.test('every positional and flag of every command has a description', async (t) => {
  t.ok(commandSpecs().length >= 35, `walked ${commandSpecs().length} commands`);
  t.same(undescribed([globalSpec(), ...commandSpecs()]), []);
  for (const s of visible()) t.ok(typeof s.describe === 'string' && s.describe.length > 10, `${s.name} is described`);
  // The walk sees what a builder declares: an undescribed one is reported.
  const bare = specOf({
    command: 'x <id>',
    describe: 'x',
    builder: (y) => y.positional('id', { type: 'string' }).option('flag', { type: 'boolean' }),
  });
  t.same(undescribed([bare]), ['x <id>', 'x --flag']);
});

t.test("yargs' own help shows a description on every argument line", async (t) => {
  const sb = sandbox();
  t.teardown(sb.cleanup);
  const l = cli(sb);
  for (const s of visible()) {
    const r = await l(s.name, '--help');
    t.equal(r.code, 0, `${s.name} --help`);
    const lines = r.stdout.split('\n');
    const args = lines.filter((x) => /^ {2}(-\w, --[\w-]+|-\w|\s{4}--[\w-]+|[\w-]+)( |$)/.test(x));
    t.ok(args.length >= 4, `${s.name}: ${args.length} argument lines`);
    for (const line of args) {
      const rest = line.replace(/^\s+(-\w, )?(--)?[\w-]+/, '').trim();
      t.notMatch(rest, /^(\[|$)/, `${s.name}: "${line.trim()}" has a description`);
    }
  }
});

t.test('lazy, -h, --help, help <cmd>, <cmd> -h and <cmd> --help print help and exit 0', async (t) => {
  const sb = sandbox();
  t.teardown(sb.cleanup);
  const run = (...a: string[]) => lazySpawn(a, { cwd: sb.dir, env: sb.env });
  for (const args of [[], ['-h'], ['--help'], ['help']]) {
    const r = await run(...args);
    t.equal(r.code, 0, `lazy ${args.join(' ')} exits 0`);
    t.equal(r.stderr, '');
    t.match(r.stdout, /^lazy <command> \[options\]/);
    for (const s of visible()) t.match(r.stdout, new RegExp(`\\n {2}lazy ${s.name}\\b`), `lists ${s.name}`);
    t.match(r.stdout, /lazy help \[command\]/);
    t.match(r.stdout, /lazy completion bash\|zsh\|fish/, 'names completion');
  }
  for (const args of [
    ['help', 'list'],
    ['list', '-h'],
    ['list', '--help'],
    ['ls', '-h'],
    ['-C', sb.dir, 'help', 'ls'],
  ]) {
    const r = await run(...args);
    t.equal(r.code, 0, `lazy ${args.join(' ')} exits 0`);
    t.equal(r.stderr, '');
    t.match(r.stdout, /^lazy list\n/, 'the help of list');
    t.match(r.stdout, /--status/);
  }
  const unknown = await run('help', 'frobnicate');
  t.equal(unknown.code, 2, 'help for a command that does not exist is a usage error');
  t.match(unknown.stderr, /no such command: frobnicate/);
  t.equal(unknown.stdout, '');
});

t.test('help wraps to the terminal: COLUMNS, else 80 off a terminal', async (t) => {
  const sb = sandbox();
  t.teardown(sb.cleanup);
  const { COLUMNS: _drop, ...noColumns } = sb.env;
  const widest = (s: string) => Math.max(...s.split('\n').map((l) => [...l].length));
  for (const [env, limit] of [
    [noColumns, 80],
    [{ ...sb.env, COLUMNS: '60' }, 60],
    [{ ...sb.env, COLUMNS: '100' }, 100],
  ] as const) {
    for (const args of [['config', '--help'], ['--help'], ['list', '--help']]) {
      const r = await lazySpawn(args, { cwd: sb.dir, env });
      t.equal(r.code, 0);
      t.ok(widest(r.stdout) <= limit, `lazy ${args.join(' ')} at ${limit}: widest line ${widest(r.stdout)}`);
    }
  }
  const wide = await lazySpawn(['--help'], { cwd: sb.dir, env: { ...sb.env, COLUMNS: '300' } });
  t.ok(widest(wide.stdout) > 100 && widest(wide.stdout) <= 120, 'a wide terminal: lines up to 120 columns');
});

t.test('a missing argument names itself (exit 2; a JSON error with --json)', async (t) => {
  const sb = sandbox();
  t.teardown(sb.cleanup);
  const run = (...a: string[]) => lazySpawn(a, { cwd: sb.dir, env: sb.env });
  const show = await run('show');
  t.equal(show.code, 2);
  t.equal(show.stdout, '');
  t.match(show.stderr, /^lazy: missing <id>: the task to show\n/);
  t.match(show.stderr, /hint: lazy show --help/);
  const json = await run('show', '--json');
  t.equal(json.code, 2);
  t.same(JSON.parse(json.stdout), {
    error: {
      code: 'usage',
      message: 'missing <id>: the task to show',
      details: { command: 'show', argument: 'id', hint: 'lazy show --help shows its arguments' },
    },
  });
  t.match((await run('queue')).stderr, /missing <ids\.\.>: /, 'a variadic one');
  t.match((await run('create')).stderr, /missing <goal\.\.>: what the task should achieve/);
  t.match((await run('config')).stderr, /missing <action>: /);
  t.match((await run('completion')).stderr, /missing <shell>: the shell/);
});
