import t from 'tap';
import { existsSync, readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { cli, ROOT } from '../helpers/env.js';
import { team, withFakeAgent } from '../helpers/team.js';

// The CLI contract of lazy submit and show --markdown: the built binary's exit codes and --json shapes.

const FAKE_GH = join(ROOT, 'test', 'fixtures', 'fake-gh.mjs');

t.test('submit --json: its shape and exits (0, 7 on a failing PR command); show --markdown', async (t) => {
  const tm = team(1);
  t.teardown(tm.cleanup);
  const sb = tm.clones[0]!;
  await withFakeAgent(sb);
  const ghLog = join(sb.home, 'gh.jsonl');
  const l = cli(sb, { FAKE_GH_LOG: ghLog });
  const failing = cli(sb, { FAKE_GH_LOG: ghLog, FAKE_GH_FAIL: 'forbidden' });
  t.equal((await l('config', 'set', 'forge.pr_command', `"${process.execPath}" "${FAKE_GH}" pr create`)).code, 0);
  const id = await l.create('ship the fix', '--accept', 'it ships');
  await l('start', id);
  await l('wait', id, '--timeout', '60');

  const bad = await failing.spawn('submit', id, '--json');
  t.equal(bad.code, 7, 'a failing PR command exits 7');
  const r = JSON.parse(bad.stdout);
  t.notOk(r.error, 'and still prints the result, not an error document');
  t.same(
    Object.keys(r).sort(),
    ['branch', 'head', 'pr', 'push_error', 'remote', 'retried', 'target', 'task', 'url'],
    'the result has exactly these keys',
  );
  t.same(Object.keys(r.pr).sort(), ['command', 'error', 'exit_code', 'signal', 'stderr', 'stdout', 'url']);
  t.match(r, { remote: 'origin', branch: `lazy/${id}`, target: 'main', retried: false, url: null, push_error: null });
  t.match(r.pr, { exit_code: 1, error: 'exit 1: error: forbidden', url: null });
  t.equal(r.task.status, 'submitted');
  t.equal(bad.stderr, '', 'stdout carries the whole result; stderr stays quiet');

  const good = await l.spawn('submit', id, '--json');
  t.equal(good.code, 0, 'the retry exits 0');
  t.match(JSON.parse(good.stdout), { retried: true, url: 'https://forge.example/o/r/pull/2' });
  const text = await l.spawn('submit', id);
  t.match(text.stdout, `${id}: submitted again`, 'text output names the task');
  t.match(text.stdout, 'the pull request https://forge.example/o/r/pull/2 stands', 'a standing PR is kept');

  const md = await l.spawn('show', id, '--markdown');
  t.equal(md.code, 0);
  const last = readFileSync(ghLog, 'utf8')
    .trim()
    .split('\n')
    .map((x) => JSON.parse(x))
    .at(-1);
  t.equal(md.stdout, last.body, 'show --markdown prints the body the PR command was given');
  t.notOk(existsSync(last.env.LAZY_BODY_FILE), 'which was removed after the command');
  const mdJson = JSON.parse((await l.spawn('show', id, '--markdown', '--json')).stdout);
  t.same(Object.keys(mdJson).sort(), ['id', 'markdown']);
  t.equal(mdJson.markdown, last.body);

  const refused = await l.spawn('submit', await l.create('never started'), '--json');
  t.equal(refused.code, 4, 'a backlog task: exit 4');
  t.equal(JSON.parse(refused.stdout).error.code, 'action_not_allowed');
});

// The real gh, where installed (Debian's, 2.23, has no --fill-first): the example command line of docs/configuration.md is one it
// parses, and its failure (no GitHub remote here; nothing reaches the network) is recorded as any PR command's.
const gh = spawnSync('gh', ['pr', 'create', '--help'], { encoding: 'utf8' });
t.test(
  'the real gh takes the documented example and fails cleanly without a GitHub remote',
  { skip: gh.error ? 'gh is not installed' : false },
  async (t) => {
    for (const flag of ['--head', '--base', '--title', '--body-file'])
      t.match(gh.stdout, flag, `gh pr create knows ${flag}`);
    const tm = team(1);
    t.teardown(tm.cleanup);
    const sb = tm.clones[0]!;
    await withFakeAgent(sb);
    const l = cli(sb, { GH_TOKEN: 'not-a-token', GH_PROMPT_DISABLED: '1' });
    const example = 'gh pr create --head {branch} --base {base} --title={title} --body-file {body_file}';
    t.equal((await l('config', 'set', 'forge.pr_command', example)).code, 0);
    const id = await l.create('ship it', '--accept', 'it ships');
    await l('start', id);
    await l('wait', id, '--timeout', '60');
    const r = await l.spawn('submit', id, '--json');
    t.equal(r.code, 7, 'gh fails: exit 7');
    const v = JSON.parse(r.stdout);
    t.equal(v.task.status, 'submitted');
    t.same(v.pr.command.slice(0, 8), [
      'gh',
      'pr',
      'create',
      '--head',
      `lazy/${id}`,
      '--base',
      'main',
      '--title=ship it',
    ]);
    t.match(v.pr.error, /^exit [1-9]\d*: \S/, "gh's exit code and its last stderr line are recorded");
  },
);
