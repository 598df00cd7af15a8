import t from 'tap';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { spawnSync } from 'node:child_process';
import { sandbox, lazySpawn, cli, gitSync, LAZY, type Sandbox } from '../helpers/env.js';
import { STATUSES } from '../../lib/model/status.js';
import { mcpClient } from '../helpers/mcp.js';
import { VERSION } from '../../lib/store/listing/files.js';
import { PIPED_LINES } from '../../lib/output/piped-line.js';

// Shell completion: the scripts `lazy completion <shell>` prints, run in a real bash (zsh and
// fish syntax-checked when installed), and the `__complete` path they call, which answers
// task ids from the listing index without git, the store or a reconcile.

/** `lazy` on PATH (as npm link puts it), with node beside it and nothing else. */
function pathWithLazy(sb: Sandbox, withGit = true): string {
  const bin = join(sb.home, 'bin');
  mkdirSync(bin, { recursive: true });
  try {
    symlinkSync(LAZY, join(bin, 'lazy'));
  } catch {
    /* made by an earlier call */
  }
  return withGit ? `${bin}:${dirname(process.execPath)}:${process.env.PATH}` : `${bin}:${dirname(process.execPath)}`;
}

/** Sources the bash script and asks _lazy to complete `line` (its last word is the one typed). */
function bashComplete(sb: Sandbox, words: string[], cwd = sb.dir): string[] {
  const script = join(sb.home, 'lazy.bash');
  const env = { ...sb.env, PATH: pathWithLazy(sb) };
  // The script is the same for every line (a test of its own checks what prints it): made once per sandbox.
  if (!existsSync(script))
    writeFileSync(script, spawnSync(process.execPath, [LAZY, 'completion', 'bash'], { env, encoding: 'utf8' }).stdout);
  const quoted = words.map((w) => `'${w}'`).join(' ');
  const r = spawnSync(
    'bash',
    [
      '--norc',
      '--noprofile',
      '-c',
      `source ${script}; COMP_WORDS=(${quoted}); COMP_CWORD=${words.length - 1}; _lazy; printf '%s\\n' "\${COMPREPLY[@]}"`,
    ],
    { cwd, env, encoding: 'utf8' },
  );
  if (r.status !== 0) throw new Error(`bash failed: ${r.stderr}`);
  return r.stdout.split('\n').filter(Boolean);
}

t.test('lazy completion bash|zsh|fish prints a script; another shell is a usage error', async (t) => {
  const sb = sandbox();
  t.teardown(sb.cleanup);
  for (const shell of ['bash', 'zsh', 'fish']) {
    const r = await lazySpawn(['completion', shell], { cwd: sb.dir, env: sb.env });
    t.equal(r.code, 0, shell);
    t.match(r.stdout, /lazy __complete -- /, `${shell} asks lazy __complete`);
    const json = await lazySpawn(['completion', shell, '--json'], { cwd: sb.dir, env: sb.env });
    t.same(JSON.parse(json.stdout), { shell, script: r.stdout }, `${shell} --json`);
  }
  const bad = await lazySpawn(['completion', 'tcsh'], { cwd: sb.dir, env: sb.env });
  t.equal(bad.code, 2);
  t.match(bad.stderr, /Invalid values/);
});

t.test('the zsh and fish scripts: syntax-checked by their shells when installed, else by content', async (t) => {
  const sb = sandbox();
  t.teardown(sb.cleanup);
  for (const [shell, marks] of [
    ['zsh', [/^#compdef lazy/, /compdef _lazy lazy/, /_describe/, /:dirs\) _files -\//]],
    ['fish', [/complete -c lazy -f -a '\(__lazy_complete\)'/, /commandline -opc/, /__fish_complete_directories/]],
  ] as const) {
    const script = (await lazySpawn(['completion', shell], { cwd: sb.dir, env: sb.env })).stdout;
    for (const m of marks) t.match(script, m, `${shell}: ${m}`);
    const file = join(sb.home, `lazy.${shell}`);
    writeFileSync(file, script);
    const check = spawnSync(shell, ['-n', file], { encoding: 'utf8' });
    if (check.error) t.comment(`${shell} is not installed: checked by content only`);
    else t.equal(check.status, 0, `${shell} -n accepts it: ${check.stderr}`);
  }
  const bash = spawnSync('bash', ['-n'], {
    input: (await lazySpawn(['completion', 'bash'], { cwd: sb.dir, env: sb.env })).stdout,
  });
  t.equal(bash.status, 0, 'bash -n accepts the bash script');
});

t.test('bash completes commands, flags, statuses, choices and task ids', async (t) => {
  const sb = sandbox();
  t.teardown(sb.cleanup);
  const l = cli(sb);
  const a = await l.create('first task');
  const b = await l.create('second task');
  // The built CLI writes the index it reads (an in-process run's differs: its table signature is unminified code).
  t.equal((await l.spawn('list')).code, 0, 'the listing index exists');

  const commands = bashComplete(sb, ['lazy', '']);
  for (const c of ['init', 'create', 'list', 'show', 'accept', 'completion', 'help']) t.ok(commands.includes(c), c);
  t.notOk(
    commands.some((c) => c.startsWith('__')),
    'hidden commands are not offered',
  );
  t.same(bashComplete(sb, ['lazy', 'li']), ['list']);
  t.same(bashComplete(sb, ['lazy', 'list', '--st']), ['--status']);
  const flags = bashComplete(sb, ['lazy', 'list', '-']);
  for (const f of ['-a', '--all', '-s', '--status', '--json', '-C', '-h', '--help']) t.ok(flags.includes(f), f);
  t.notOk(flags.includes('--C') || flags.includes('--a'), 'no --C or --a');
  t.same(bashComplete(sb, ['lazy', 'list', '--status', '']), [...STATUSES]);
  t.same(bashComplete(sb, ['lazy', 'ls', '-s', 'wo']), ['working'], 'through the alias and the short flag');
  t.same(bashComplete(sb, ['lazy', 'list', '--status', 'blocked,wo']), ['blocked,working'], 'a comma list');
  t.same(bashComplete(sb, ['lazy', 'config', '']), ['set', 'unset', 'get', 'list', 'trust']);
  t.same(bashComplete(sb, ['lazy', 'completion', 'f']), ['fish']);
  t.same(bashComplete(sb, ['lazy', 'help', 'sh']), ['show']);
  t.same(bashComplete(sb, ['lazy', 'show', '']).sort(), [a, b].sort(), 'task ids');
  t.same(
    bashComplete(sb, ['lazy', 'show', a.slice(0, 3)]),
    [a, b].filter((i) => i.startsWith(a.slice(0, 3))),
  );
  t.same(bashComplete(sb, ['lazy', 'queue', a, '']).sort(), [a, b].sort(), 'every id of a variadic positional');
  t.same(bashComplete(sb, ['lazy', 'list', '--parent', '']).sort(), [a, b].sort(), '--parent takes an id');
  t.same(bashComplete(sb, ['lazy', 'show', a, '']), [], 'show takes one id');
  const other = join(sb.home, 'elsewhere');
  mkdirSync(other);
  t.same(bashComplete(sb, ['lazy', '-C', sb.dir, 'show', '']).sort(), [a, b].sort(), '-C names the repository');
  t.same(bashComplete(sb, ['lazy', 'show', ''], other), [], 'outside a repository: no ids, no error');
  mkdirSync(join(sb.dir, 'subdir'));
  const dirs = bashComplete(sb, ['lazy', '-C', '']);
  t.ok(dirs.includes('subdir') && !dirs.includes('README.md'), '-C completes directories');
});

t.test('task ids come from the listing index alone: no git, no store, no reconcile', async (t) => {
  const sb = sandbox();
  t.teardown(sb.cleanup);
  const l = cli(sb);
  const a = await l.create('indexed');
  t.equal((await l.spawn('list')).code, 0);
  // Without git on PATH nothing that opens the store could run; the index still answers.
  const env = { ...sb.env, PATH: pathWithLazy(sb, false) };
  const r = spawnSync(process.execPath, [LAZY, '__complete', '--', 'show', ''], { cwd: sb.dir, env, encoding: 'utf8' });
  t.equal(r.status, 0, r.stderr);
  t.equal(r.stdout, `${a}\n`);
  // The ref gone behind the index's back: the store knows, the completion (a cache's answer) does not look.
  gitSync(sb.dir, sb.env, ['update-ref', '-d', `refs/lazy/tasks/${a}`]);
  const stale = spawnSync(process.execPath, [LAZY, '__complete', '--', 'show', ''], {
    cwd: sb.dir,
    env,
    encoding: 'utf8',
  });
  t.equal(stale.stdout, `${a}\n`, 'answered from the index, not the refs');
  t.equal((await l.spawn('show', a)).code, 3, 'while the store has no such task');
});

t.test('the MCP server and the CLI share one listing index: completion still answers after lazy mcp', async (t) => {
  const sb = sandbox();
  t.teardown(sb.cleanup);
  const l = cli(sb);
  const a = await l.create('listed by both');
  t.equal((await l.spawn('list')).code, 0);
  const index = join(sb.dir, '.git', 'lazy', 'index.ndjson');
  const version = () => JSON.parse(readFileSync(index, 'utf8').split('\n')[0]!).version;
  const before = version();
  // The table's signature in the key is built from data: the bundles, minified or not, and the sources agree.
  t.equal(before, VERSION, 'the CLI keys the index as the TypeScript sources do');
  const plain = JSON.parse(readFileSync(join(sb.dir, '.git', 'lazy', 'index-plain.tsv'), 'utf8').split('\n')[0]!);
  t.equal(plain.version, `${VERSION}+${PIPED_LINES.version}`, "the plain file's key: the index's and the line's");
  const m = await mcpClient(sb);
  t.teardown(() => m.close());
  t.match(await m.ok('lazy_list', { all: true }), { items: [{ id: a }] });
  await m.close();
  t.equal(version(), before, "the server wrote (or kept) the index under the CLI's version");
  const r = spawnSync(process.execPath, [LAZY, '__complete', '--', 'show', ''], {
    cwd: sb.dir,
    env: sb.env,
    encoding: 'utf8',
  });
  t.equal(r.stdout, `${a}\n`, 'completion answers without another list');
});

t.test("yargs' hidden completion protocol gets the same answers (no --C, no --a)", async (t) => {
  const sb = sandbox();
  t.teardown(sb.cleanup);
  const r = await lazySpawn(['--get-yargs-completions', 'lazy', 'list', '--'], { cwd: sb.dir, env: sb.env });
  t.equal(r.code, 0);
  const offered = r.stdout.split('\n').map((l) => l.split('\t')[0]);
  t.ok(offered.includes('--all') && offered.includes('--status'), 'long flags');
  t.notOk(offered.includes('--C') || offered.includes('--a') || offered.includes('--s'), 'no --C, --a or --s');
});

t.test("git lazy completes through git's own bash completion (_git_lazy)", async (t) => {
  const sb = sandbox();
  t.teardown(sb.cleanup);
  const gitCompletion = '/usr/share/bash-completion/completions/git';
  if (!existsSync(gitCompletion)) {
    t.comment("git's bash completion is not installed");
    return;
  }
  const id = await cli(sb).create('via git');
  t.equal((await cli(sb).spawn('list')).code, 0);
  const script = join(sb.home, 'lazy.bash');
  const env = { ...sb.env, PATH: pathWithLazy(sb) };
  // The script is the same for every line (a test of its own checks what prints it): made once per sandbox.
  if (!existsSync(script))
    writeFileSync(script, spawnSync(process.execPath, [LAZY, 'completion', 'bash'], { env, encoding: 'utf8' }).stdout);
  const ask = (line: string) => {
    const words = line.split(' ');
    const r = spawnSync(
      'bash',
      [
        '--norc',
        '-c',
        `source ${gitCompletion}; source ${script}; COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); ` +
          `COMP_CWORD=${words.length - 1}; COMP_LINE='${line}'; COMP_POINT=${line.length}; ` +
          `__git_wrap__git_main; printf '%s\\n' "\${COMPREPLY[@]}"`,
      ],
      { cwd: sb.dir, env, encoding: 'utf8' },
    );
    return r.stdout
      .split('\n')
      .filter(Boolean)
      .map((w) => w.trim());
  };
  t.same(ask('git lazy sh'), ['show']);
  t.same(ask('git lazy show '), [id]);
});
