import t from 'tap';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LAZY, ROOT, cli, gitSync, sandbox, type Sandbox } from '../helpers/env.js';
import { background, exited } from '../helpers/procs.js';

// Issue 14, Output: show, log and diff page through $LAZY_PAGER, then $GIT_PAGER, git's core.pager, then
// $PAGER, then less (LESS=FRX unless set), on a terminal only, as git does. A real pager process
// (test/fixtures/fake-pager.mjs) and a real pseudo-terminal (util-linux `script`).

const PAGER = join(ROOT, 'test', 'fixtures', 'fake-pager.mjs');
const pagerCmd = (name: string, mode = '') => `'${process.execPath}' '${PAGER}' ${name} ${mode}`.trimEnd();
const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

interface Seen {
  name: string;
  text?: string;
  LESS?: string | null;
  LV?: string | null;
  args?: string[];
  tty?: boolean;
  quit?: boolean;
}

/** The built CLI with stdout (and stdin, stderr) on a pseudo-terminal; `output` is what the terminal showed. */
function onTerminal(sb: Sandbox, args: string[], env: NodeJS.ProcessEnv) {
  const line = [process.execPath, LAZY, ...args].map(q).join(' ');
  const child = background('script', ['-qec', line, '/dev/null'], {
    cwd: sb.dir,
    env: { ...sb.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  return exited(child).then(({ code }) => ({ code, output: output.replace(/\r\n/g, '\n') }));
}

function setup(t: { teardown(f: () => Promise<void>): void }) {
  const sb = sandbox();
  t.teardown(() => sb.cleanup());
  const log = join(sb.home, 'pager.log');
  const seen = (): Seen[] =>
    existsSync(log)
      ? readFileSync(log, 'utf8')
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as Seen)
      : [];
  // Hermetic: none of the runner's pager or colour settings leak in ('' counts as unset for colour).
  // (A child's environment leaves out what is undefined.)
  const env = {
    FAKE_PAGER_LOG: log,
    NO_COLOR: '',
    FORCE_COLOR: '',
    LESS: undefined,
    LV: undefined,
    PAGER: undefined,
    GIT_PAGER: undefined,
  };
  return { sb, l: cli(sb, env), seen, env };
}

t.test('off a terminal no pager runs; on one $LAZY_PAGER comes first', async (t) => {
  const { sb, l, seen, env } = setup(t);
  await l('init');
  const id = await l.create('paged goal');
  gitSync(sb.dir, sb.env, ['config', 'core.pager', pagerCmd('core')]);
  const all = { ...env, LAZY_PAGER: pagerCmd('lazy'), PAGER: pagerCmd('pager') };
  const piped = await cli(sb, all).spawn('show', id);
  t.equal(piped.code, 0);
  t.match(piped.stdout, `${id}  paged goal`, 'piped: the text is on stdout');
  t.same(seen(), [], 'and no pager ran');

  const shown = await onTerminal(sb, ['show', id], all);
  t.equal(shown.code, 0, 'exit 0');
  t.match(shown.output, 'paged by lazy', "the pager's own output reached the terminal");
  const [first, ...rest] = seen();
  t.same(rest, [], 'one pager ran');
  t.equal(first?.name, 'lazy', '$LAZY_PAGER over core.pager and $PAGER');
  t.match(first?.text, `${id}  paged goal`, 'it was given the whole text');
  t.match(first?.text, '\u001b[2mbacklog\u001b[22m', 'coloured: on a terminal, auto colours');
  t.equal(first?.LESS, 'FRX', 'LESS=FRX when unset, as git sets it');
  t.equal(first?.LV, '-c');
  t.notOk(shown.output.includes('Changelog'), 'nothing of the text went to the terminal directly');
});

t.test("then $GIT_PAGER, git's core.pager, then $PAGER, then less; an empty one or cat means none", async (t) => {
  const { sb, l, seen, env } = setup(t);
  await l('init');
  const id = await l.create('order');
  gitSync(sb.dir, sb.env, ['config', 'core.pager', pagerCmd('core')]);
  await onTerminal(sb, ['log', id], { ...env, GIT_PAGER: pagerCmd('git'), PAGER: pagerCmd('pager') });
  t.equal(seen().at(-1)?.name, 'git', '$GIT_PAGER before core.pager, as git reads it');
  await onTerminal(sb, ['log', id], { ...env, LAZY_PAGER: pagerCmd('lazy'), GIT_PAGER: pagerCmd('git') });
  t.equal(seen().at(-1)?.name, 'lazy', '$LAZY_PAGER before $GIT_PAGER');
  t.equal((await onTerminal(sb, ['log', id], { ...env, PAGER: pagerCmd('pager') })).code, 0);
  t.equal(seen().at(-1)?.name, 'core', 'core.pager before $PAGER');
  t.match(seen().at(-1)?.text, 'lazy: create', 'log is paged');
  gitSync(sb.dir, sb.env, ['config', '--unset', 'core.pager']);
  await onTerminal(sb, ['log', id], { ...env, PAGER: pagerCmd('pager'), LESS: 'R' });
  t.equal(seen().at(-1)?.name, 'pager', '$PAGER next');
  t.equal(seen().at(-1)?.LESS, 'R', "the user's LESS is kept");
  // Nothing set: `less`, found on PATH (here a stand-in that records how it was run).
  const bin = join(sb.home, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'less'), `#!/bin/sh\nexec ${pagerCmd('less')} "" "$@"\n`);
  chmodSync(join(bin, 'less'), 0o755);
  await onTerminal(sb, ['log', id], { ...env, PATH: `${bin}:${process.env.PATH}` });
  t.equal(seen().at(-1)?.name, 'less', 'less by default');
  t.equal(seen().at(-1)?.LESS, 'FRX');
  const before = seen().length;
  for (const none of ['', 'cat']) {
    const r = await onTerminal(sb, ['log', id], { ...env, LAZY_PAGER: none, PAGER: pagerCmd('pager') });
    t.match(r.output, 'lazy: create', `LAZY_PAGER=${JSON.stringify(none)}: the text is on the terminal`);
  }
  gitSync(sb.dir, sb.env, ['config', 'core.pager', 'cat']);
  await onTerminal(sb, ['log', id], { ...env, PAGER: pagerCmd('pager') });
  t.equal(seen().length, before, 'no pager ran for an empty LAZY_PAGER, LAZY_PAGER=cat or core.pager=cat');
  const listed = await onTerminal(sb, ['list'], { ...env, LAZY_PAGER: pagerCmd('lazy') });
  t.match(listed.output, 'order', 'list is not paged');
  t.match(listed.output, /\d+[sm] ago/, 'on a terminal the update time is relative, from the same stored lines');
  t.equal(seen().length, before, 'no pager for list');
});

t.test("diff pages git's coloured diff; the pager's exit never breaks the command", async (t) => {
  const { sb, l, seen, env } = setup(t);
  await l('init');
  const id = await l.create('big', '--prompt', 'x'.repeat(400 * 1024));
  gitSync(sb.dir, sb.env, ['checkout', '-q', '-b', `lazy/${id}`]);
  writeFileSync(join(sb.dir, 'new.txt'), 'added line\n');
  gitSync(sb.dir, sb.env, ['add', 'new.txt']);
  gitSync(sb.dir, sb.env, ['commit', '-q', '-m', 'add']);
  gitSync(sb.dir, sb.env, ['checkout', '-q', 'main']);
  t.equal((await onTerminal(sb, ['diff', id], { ...env, LAZY_PAGER: pagerCmd('lazy') })).code, 0);
  t.match(seen().at(-1)?.text, '\u001b[32madded line', 'the pager gets the diff git coloured for the terminal');
  const quit = await onTerminal(sb, ['show', id], { ...env, LAZY_PAGER: pagerCmd('lazy', 'quit') });
  t.ok(seen().at(-1)?.quit, 'the pager quit before reading 400 KiB');
  t.equal(quit.code, 0, 'lazy still exits 0');
  t.notMatch(quit.output, /EPIPE|Error|lazy:/, 'and says nothing about it');
  const failed = await onTerminal(sb, ['show', id], { ...env, LAZY_PAGER: pagerCmd('lazy', 'fail') });
  t.ok((seen().at(-1)?.text?.length ?? 0) > 400 * 1024, 'the whole text was read');
  t.equal(failed.code, 0, "a pager's own failure is not the command's");
  const missing = await onTerminal(sb, ['show', id], { ...env, LAZY_PAGER: 'no-such-pager-here' });
  t.equal(missing.code, 0, 'a pager that is not there: still exit 0');
  t.match(missing.output, `${id}  big`, 'and the text is shown without one, as git does');
});

t.test('piped, a list prints whole rows, tab-separated (the real pipe)', async (t) => {
  const { l } = setup(t);
  await l('init');
  const goal = `goal ${'y'.repeat(200)}`;
  const id = await l.create(goal);
  const r = await l.spawn('list');
  t.equal(r.stdout, `${id}\tbacklog\t${r.stdout.split('\t')[2]}\t\t${goal}\n`);
  t.match(
    r.stdout.split('\t')[2],
    /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/,
    'the update time as stored (ISO), as gh prints for scripts',
  );
});
