import t from 'tap';
import { mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { spawnSync } from 'node:child_process';
import { sandbox, lazySpawn, cli, LAZY, ROOT } from '../helpers/env.js';
import { commandSpecs, globalSpec } from '../../bin/registry.js';
import { specOf, type CommandSpec } from '../../bin/spec.js';
import { exitCodes, manPage } from '../../bin/man.js';
import { skipHelpCache } from '../../bin/cli.js';
import yargs from 'yargs';

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
  t.match(unknown.stderr, /unknown command 'frobnicate'; the nearest is '\w+'/);
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
  // A global option's value is not taken for the command: it is read from the options' definitions.
  const fieldsFirst = await run('--fields', 'id', 'show'); // --fields implies --json
  t.equal(JSON.parse(fieldsFirst.stdout).error.message, 'missing <id>: the task to show');
  const colorOnly = await run('--color', 'never');
  t.equal(colorOnly.code, 0, 'lazy with only a global option prints help');
  t.match(colorOnly.stdout, /^lazy <command> \[options\]/);
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
  t.match((await run('create')).stderr, /missing <goal>: what the task should achieve/);
  t.match((await run('config')).stderr, /missing <action>: /);
  t.match((await run('completion')).stderr, /missing <shell>: the shell/);
});

/** A man page as a person reads it: man -l, else groff, else the troff source with its escapes dropped. */
function rendered(file: string): string {
  const env = { ...process.env, MANWIDTH: '100', MANPAGER: 'cat', PAGER: 'cat', LC_ALL: 'C.UTF-8' };
  for (const [cmd, args] of [
    ['man', ['-l', file]],
    ['groff', ['-man', '-Tutf8', file]],
  ] as const) {
    const r = spawnSync(cmd, args, { env, encoding: 'utf8' });
    if (!r.error && r.status === 0 && r.stdout.trim()) return r.stdout.replace(/.\x08/g, '');
  }
  return readFileSync(file, 'utf8')
    .replace(/\\f[BIR]|\\&/g, '')
    .replace(/\\-/g, '-');
}

t.test('the build writes lazy.1 and git-lazy.1 from the command definitions; package.json installs them', async (t) => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  t.same(pkg.man, ['./dist/man/lazy.1', './dist/man/git-lazy.1']);
  const doc = readFileSync(join(ROOT, 'docs', 'commands.md'), 'utf8');
  t.same(
    exitCodes(doc).map(([c]) => c),
    ['0', '1', '2', '3', '4', '5', '6', '7'],
  );
  for (const page of ['lazy', 'git-lazy']) {
    const file = join(ROOT, 'dist', 'man', `${page}.1`);
    t.equal(readFileSync(file, 'utf8'), manPage({ page, version: pkg.version, doc }), `${page}.1 is current`);
    const text = rendered(file).replace(/\u2010\n\s*/g, '');
    t.match(text, new RegExp(`^${page.toUpperCase()}\\(1\\)`), `${page}.1 renders`);
    const prefix = page === 'lazy' ? 'lazy' : 'git lazy';
    for (const s of commandSpecs().filter((c) => c.describe !== false)) {
      t.match(text, new RegExp(`\\n\\s+${prefix} ${s.name}\\b`), `${page}.1 names ${s.name}`);
      for (const o of s.options)
        t.ok(text.includes(o.name.length > 1 ? `--${o.name}` : `-${o.name}`), `${s.name} ${o.name}`);
    }
    t.notMatch(text, /__supervise|__bench-seed|__demo-agent/, 'hidden commands stay hidden');
    for (const [code, meaning] of exitCodes(doc)) {
      t.match(text, new RegExp(`\\n\\s+${code}\\s+${meaning.split(' ')[0]}`), `exit ${code}`);
    }
    const warn = spawnSync('groff', ['-man', '-ww', '-z', file], { encoding: 'utf8' });
    if (!warn.error) t.equal(warn.stderr, '', `groff has no warning about ${page}.1`);
  }
});

t.test('git lazy --help opens the man page (git runs man git-lazy)', async (t) => {
  const sb = sandbox();
  t.teardown(sb.cleanup);
  if (spawnSync('man', ['--version']).error) {
    t.comment('man is not installed');
    return;
  }
  const man1 = join(sb.home, 'man', 'man1');
  const bin = join(sb.home, 'bin');
  mkdirSync(man1, { recursive: true });
  mkdirSync(bin);
  symlinkSync(join(ROOT, 'dist', 'man', 'git-lazy.1'), join(man1, 'git-lazy.1'));
  symlinkSync(LAZY, join(bin, 'git-lazy'));
  const env = {
    ...sb.env,
    PATH: `${bin}:${dirname(process.execPath)}:${process.env.PATH}`,
    MANPATH: join(sb.home, 'man'),
    MANPAGER: 'cat',
    MANWIDTH: '100',
  };
  const r = spawnSync('git', ['lazy', '--help'], { cwd: sb.dir, env, encoding: 'utf8' });
  t.equal(r.status, 0, r.stderr);
  t.match(r.stdout.replace(/.\x08/g, ''), /GIT-LAZY\(1\)[\s\S]*git lazy accept/);
});

t.test("yargs' copy of the full help is not formatted on every command", async (t) => {
  // yargs formats the whole help before running any command, in case its own error path shows it; lazy
  // reports its own errors, and that formatting cost every command about as much as the rest of its
  // start-up. This yargs still keeps the copy where skipHelpCache finds it: an upgrade that moves it fails here.
  const y = yargs();
  t.equal(skipHelpCache(y), true, 'the copy is skipped');
  t.equal(skipHelpCache({}), false, 'a parser without it is left alone, and says so');
  const sb = sandbox();
  t.teardown(sb.cleanup);
  const r = await cli(sb)('--help');
  t.equal(r.code, 0);
  t.match(r.stdout, /lazy <command> \[options\]/, 'help is still printed when asked for');
});
