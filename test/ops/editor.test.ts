import t from 'tap';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ROOT, gitSync, lazy, sandbox, type Sandbox } from '../helpers/env.js';
import { editorCommand } from '../../lib/ops/editor.js';

// lib/ops/editor.ts in this process: create and edit open the editor on the task's fields when no
// text is given, on a terminal only (the port's isTTY), as git opens one for a commit message.
// The editor is test/fixtures/fake-editor.mjs, which records what it was shown and writes its answer.

const FAKE = `"${process.execPath}" "${join(ROOT, 'test', 'fixtures', 'fake-editor.mjs')}"`;
const TERMINAL = { isTTY: { stdin: true, stdout: true, stderr: true } };

/** Runs lazy on a terminal (or not) with the fake editor answering `text`; `saw` is what it was shown. */
function typing(sb: Sandbox, text: string | undefined, env: NodeJS.ProcessEnv = {}, terminal = true) {
  const saw = join(sb.home, `saw-${Math.random().toString(36).slice(2)}`);
  const run = (...args: string[]) =>
    lazy(args, {
      cwd: sb.dir,
      env: {
        ...sb.env,
        EDITOR: FAKE,
        FAKE_EDITOR_SAW: saw,
        ...(text === undefined ? {} : { FAKE_EDITOR_TEXT: text }),
        ...env,
      },
      io: terminal ? TERMINAL : {},
    });
  return { run, saw: () => (existsSync(saw) ? readFileSync(saw, 'utf8') : '') };
}

const show = async (sb: Sandbox, id: string) =>
  JSON.parse((await lazy(['show', id, '--json'], { cwd: sb.dir, env: sb.env })).stdout);
const tip = (sb: Sandbox, id: string) => gitSync(sb.dir, sb.env, ['rev-parse', `refs/lazy/tasks/${id}`]).trim();

t.test('the editor is LAZY_EDITOR, then VISUAL, then EDITOR, then vi (git keeps GIT_EDITOR for itself)', async (t) => {
  t.equal(editorCommand({}), 'vi');
  t.equal(editorCommand({ EDITOR: 'nano' }), 'nano');
  t.equal(editorCommand({ EDITOR: 'nano', VISUAL: 'code --wait' }), 'code --wait');
  t.equal(editorCommand({ EDITOR: 'nano', VISUAL: 'emacs', LAZY_EDITOR: 'ed', GIT_EDITOR: 'x' }), 'ed');
});

t.test(
  'create with no goal on a terminal: the template, the flags filled in; what was saved is the task',
  async (t) => {
    const sb = sandbox();
    t.teardown(sb.cleanup);
    const text =
      '# ignored\ngoal: fix the flaky login test\nprompt: |\n  look at the retry path\n  and the timeout\n' +
      'acceptance:\n  - it passes 100 runs\n  - no sleep added\ntags: [auth, flaky]\n';
    const e = typing(sb, text);
    const r = await e.run('create', '--accept', 'it passes 100 runs', '--json');
    t.equal(r.code, 0, r.stderr);
    t.match(e.saw(), /^# A new task: goal/m, 'the template explains itself');
    t.match(e.saw(), /^goal: ""$/m);
    t.match(e.saw(), /^acceptance:\n {2}- it passes 100 runs$/m, 'with what --accept gave');
    const v = JSON.parse(r.stdout).task; // create prints {task}
    t.equal(v.goal, 'fix the flaky login test');
    t.equal(v.prompt, 'look at the retry path\nand the timeout\n');
    t.same(v.acceptance, ['it passes 100 runs', 'no sleep added']);
    t.same(v.tags, ['auth', 'flaky']);
  },
);

t.test('an empty result, an empty goal or a failing editor cancels: exit 2, nothing created', async (t) => {
  const sb = sandbox();
  t.teardown(sb.cleanup);
  for (const [why, text, env, message] of [
    ['an empty file', '# only comments\n\n', {}, /create cancelled: the editor left nothing/],
    ['an empty goal', 'goal: ""\nprompt: x\n', {}, /create cancelled: the goal was left empty/],
    ['the editor failed', undefined, { FAKE_EDITOR_EXIT: '3' }, /the editor \(.*\) exited with 3: nothing was changed/],
  ] as const) {
    const r = await typing(sb, text, env).run('create', '--json');
    t.equal(r.code, 2, `${why}: exit 2`);
    t.match(JSON.parse(r.stdout).error, { code: 'cancelled', message }, why);
  }
  t.same(JSON.parse((await lazy(['list', '--json'], { cwd: sb.dir, env: sb.env })).stdout), [], 'nothing created');
});

t.test('create with no goal off a terminal: a usage error naming the goal, no editor', async (t) => {
  const sb = sandbox();
  t.teardown(sb.cleanup);
  const e = typing(sb, 'goal: never\n', {}, false);
  const r = await e.run('create', '--json');
  t.equal(r.code, 2);
  t.match(JSON.parse(r.stdout).error.message, /^missing <goal>: what the task should achieve/);
  t.equal(e.saw(), '', 'the editor never opened');
});

t.test('edit <id> on a terminal: the task in the editor; criteria and tags as left there', async (t) => {
  const sb = sandbox();
  t.teardown(sb.cleanup);
  const id = (
    await lazy(['create', 'old goal', '--prompt', 'old prompt', '--accept', 'one', '--accept', 'two', '--tag', 'x'], {
      cwd: sb.dir,
      env: sb.env,
    })
  ).stdout.trim();
  const e = typing(sb, 'goal: new goal\nprompt: old prompt\nacceptance: [two, three]\ntags: []\n');
  const r = await e.run('edit', id);
  t.equal(r.code, 0, r.stderr);
  t.match(e.saw(), /^goal: old goal$/m, 'the template holds the task as it is');
  t.match(e.saw(), /^acceptance:\n {2}- one\n {2}- two$/m);
  const v = await show(sb, id);
  t.equal(v.goal, 'new goal');
  t.equal(v.prompt, 'old prompt');
  t.same(v.acceptance, ['two', 'three'], 'a criterion removed in the editor is removed');
  t.same(v.tags, []);

  const before = tip(sb, id);
  const same = await typing(sb, undefined).run('edit', id, '--json');
  t.equal(same.code, 2, 'saved unchanged: cancelled');
  t.match(JSON.parse(same.stdout).error, {
    code: 'cancelled',
    message: `edit cancelled: nothing was changed in ${id}`,
  });
  t.equal(tip(sb, id), before, 'no commit');
});

t.test('edit <id> with no flags off a terminal is a usage error, and changes nothing', async (t) => {
  const sb = sandbox();
  t.teardown(sb.cleanup);
  const id = (await lazy(['create', 'a goal'], { cwd: sb.dir, env: sb.env })).stdout.trim();
  const before = tip(sb, id);
  const e = typing(sb, 'goal: never\n', {}, false);
  const r = await e.run('edit', id);
  t.equal(r.code, 2);
  t.match(r.stderr, /edit needs a change: --goal, --prompt, --accept, --tag, --agent or --model/);
  t.notMatch(r.stdout, /edited/);
  t.equal(tip(sb, id), before, 'no commit');
  t.equal(e.saw(), '');
});

t.test('a template that does not read is kept, and the error names where', async (t) => {
  const sb = sandbox();
  t.teardown(sb.cleanup);
  const r = await typing(sb, 'goal: [not closed\nprompt: a long prompt I typed\n').run('create', '--json');
  t.equal(r.code, 2);
  const err = JSON.parse(r.stdout).error;
  t.match(err.message, /the edited task is not valid YAML.*what you typed is kept in /);
  t.match(err.message, /at line 2, column 1; what you typed/, 'where, once, and no `:;`');
  t.notMatch(err.message, /:;|\(line/);
  t.match(readFileSync(err.details.file, 'utf8'), /a long prompt I typed/, 'nothing typed is lost');
  rmSync(dirname(err.details.file), { recursive: true });
  const unknown = await typing(sb, 'goal: g\npriority: 3\n').run('create', '--json');
  t.match(
    JSON.parse(unknown.stdout).error.message,
    /unknown field priority: the fields are goal, prompt, acceptance, tags/,
  );
});

t.test('a required message with no -m and no stdin opens the editor on a terminal', async (t) => {
  const sb = sandbox();
  t.teardown(sb.cleanup);
  const id = (await lazy(['create', 'a goal'], { cwd: sb.dir, env: sb.env })).stdout.trim();
  const e = typing(sb, 'typed in the editor\n# a comment line\n', { EDITOR: 'false', VISUAL: FAKE });
  t.equal((await e.run('comment', id)).code, 0, 'VISUAL wins over EDITOR');
  t.match(e.saw(), /# Write a comment above/);
  t.equal((await show(sb, id)).turns.at(-1).content, 'typed in the editor');
  const off = await typing(sb, 'never', {}, false).run('comment', id);
  t.equal(off.code, 2, 'off a terminal: required, no editor');
});
