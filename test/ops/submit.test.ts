import { chmodSync, existsSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Test } from 'tap';
import { cli, gitSync, lazyJson, ROOT, type Sandbox } from '../helpers/env.js';
import { team, withFakeAgent } from '../helpers/team.js';
import { concurrent } from '../helpers/concurrent.js';
import { systemClock } from '../../lib/core/clock.js';

// lazy submit (lib/ops/submit.ts) against a bare remote standing in for the forge, with a
// scripted stand-in for `gh` (test/fixtures/fake-gh.mjs) as forge.pr_command.

const test = concurrent(4);
const FAKE_GH = join(ROOT, 'test', 'fixtures', 'fake-gh.mjs');
const PR_COMMAND = `"${process.execPath}" "${FAKE_GH}" pr create --head {branch} --base {base} --title={title} --body-file {body_file}`;

interface Clone {
  sb: Sandbox;
  l: ReturnType<typeof cli>;
  ghLog: string;
  gh(): any[];
  git(...args: string[]): string;
}

async function clone(sb: Sandbox, extra: NodeJS.ProcessEnv = {}): Promise<Clone> {
  const ghLog = join(sb.home, 'gh.jsonl');
  await withFakeAgent(sb);
  return {
    sb,
    l: cli(sb, { FAKE_GH_LOG: ghLog, ...extra }),
    ghLog,
    gh: () =>
      existsSync(ghLog)
        ? readFileSync(ghLog, 'utf8')
            .split('\n')
            .filter(Boolean)
            .map((x) => JSON.parse(x))
        : [],
    git: (...args) => gitSync(sb.dir, sb.env, args).trim(),
  };
}

const remoteRef = (remote: string, ref: string) =>
  gitSync(remote, process.env, ['for-each-ref', '--format=%(objectname)', ref]).trim();

async function reviewed(c: Clone, goal = 'fix the flaky login test', scenario = 'succeed'): Promise<string> {
  const id = await c.l.create(goal, '--accept', 'the login test passes 100 runs in a row');
  const r = await cli(c.sb, { FAKE_SCENARIO: scenario })('start', id);
  if (r.code !== 0) throw new Error(r.stderr);
  await c.l('wait', id, '--timeout', '60');
  return id;
}

async function ok(t: Test, c: Clone, ...args: string[]): Promise<any> {
  const r = await c.l.json(...args);
  t.equal(r.run.code, 0, `lazy ${args.join(' ')} succeeds (${r.run.stdout.slice(0, 400)} ${r.run.stderr})`);
  return r.value;
}

test('submit pushes the branch, moves blocked → submitted, runs the PR command and records its URL', async (t) => {
  const tm = team(1);
  t.teardown(tm.cleanup);
  const c = await clone(tm.clones[0]!);
  await ok(t, c, 'config', 'set', 'forge.pr_command', PR_COMMAND);
  const id = await reviewed(c);
  const head = c.git('rev-parse', `refs/heads/lazy/${id}`);
  const s = await ok(t, c, 'submit', id);
  t.equal(s.task.status, 'submitted', 'the task is submitted');
  t.equal(s.url, 'https://forge.example/o/r/pull/1', 'the last URL the command printed');
  t.equal(
    remoteRef(tm.remote, `refs/heads/lazy/${id}`),
    head,
    'the branch is on the remote under refs/heads/lazy/<id>',
  );
  t.equal(
    remoteRef(tm.remote, `refs/lazy/tasks/${id}`),
    c.git('rev-parse', `refs/lazy/tasks/${id}`),
    'the task ref followed, with the submission record in it',
  );
  const change = s.task.changelog.at(-1);
  t.same([change.from, change.status, change.trigger], ['blocked', 'submitted', 'submit']);
  t.same(
    change.details,
    {
      remote: 'origin',
      branch: `lazy/${id}`,
      target: 'main',
      head,
      target_tip: c.git('rev-parse', 'refs/remotes/origin/main'),
    },
    'the changelog entry carries exactly the contract',
  );
  const [call] = c.gh();
  t.same(
    call.argv,
    [
      'pr',
      'create',
      '--head',
      `lazy/${id}`,
      '--base',
      'main',
      '--title=fix the flaky login test',
      '--body-file',
      call.env.LAZY_BODY_FILE,
    ],
    'one argument per word, placeholders filled in, no shell',
  );
  t.equal(realpathSync(call.cwd), realpathSync(c.sb.dir), 'it runs in the repository root');
  t.match(call.env, {
    LAZY_TASK_ID: id,
    LAZY_BRANCH: `lazy/${id}`,
    LAZY_BASE: 'main',
    LAZY_TITLE: 'fix the flaky login test',
  });
  t.notOk(existsSync(call.env.LAZY_BODY_FILE), 'the body file is removed afterwards');
  for (const part of [
    '## Goal',
    'fix the flaky login test',
    '## Acceptance criteria',
    '- the login test passes 100 runs in a row',
    '## Summary',
    'did turn 1',
    '## Changed files',
    '- `work-1.txt`',
    '### Diff stat',
    '1 file changed, 1 insertion(+)',
    '## Commands run',
    '- `npm test`: exit 0',
    '## Risks',
    '- the fake agent tests nothing',
    `Lazy-Task: ${id}`,
  ])
    t.ok(call.body.includes(part), `the body has ${JSON.stringify(part)}`);
  const turn = s.task.turns.at(-1);
  t.same([turn.role, turn.kind, turn.content], ['system', 'submission', 'opened https://forge.example/o/r/pull/1']);
  t.match(turn.details, { remote: 'origin', branch: `lazy/${id}`, head, url: s.url, exit_code: 0 });
  const shown = await ok(t, c, 'show', id);
  t.match(shown.submission, { url: s.url, remote: 'origin', branch: `lazy/${id}`, head, ok: true, error: null });
  t.match((await c.l('show', id)).stdout, `PR:        ${s.url}`, 'show says where the pull request is');
  const row = (await ok(t, c, 'list')).find((r: any) => r.id === id);
  t.equal(row.pr_url, s.url, 'list --json carries the PR URL');
  t.equal((await c.l('show', id, '--markdown')).stdout, call.body, 'show --markdown prints the very same body');
  t.equal((await c.l('submit', id)).code, 0, 'submit on a submitted task is the retry');
  t.equal(c.gh().length, 1, 'which keeps the pull request: the command does not run again');
});

test('a submission whose pull request stands pushes and keeps it: submit again after unblock, or a forge that has one', async (t) => {
  const tm = team(1);
  t.teardown(tm.cleanup);
  const c = await clone(tm.clones[0]!);
  await ok(t, c, 'config', 'set', 'forge.pr_command', PR_COMMAND);
  const id = await reviewed(c);
  const first = await ok(t, c, 'submit', id);
  t.equal(first.url, 'https://forge.example/o/r/pull/1');
  await ok(t, c, 'unblock', id, '-m', 'one more change');
  await c.l('wait', id, '--timeout', '60');
  const again = await c.l.json('submit', id);
  t.equal(again.run.code, 0, `the second hand-off succeeds (${again.run.stdout.slice(0, 300)})`);
  t.match(again.value, { retried: false, pr: null, url: first.url }, 'keeping the pull request');
  t.equal(c.gh().length, 1, 'the PR command did not run again');
  t.equal(remoteRef(tm.remote, `refs/heads/lazy/${id}`), again.value.head, 'the new work was pushed to its branch');
  t.equal(again.value.task.turns.at(-1).content, `pushed; the pull request ${first.url} stands`);
  t.match((await c.l('show', id)).stdout, `PR:        ${first.url}`, 'the PR: line keeps the URL');
  t.match((await c.l('submit', id)).stdout, `the pull request ${first.url} stands`, 'and so does every retry');

  // A pull request lazy has no record of (opened by hand, or by a run whose URL was lost): gh refuses a second
  // one with "already exists" and its URL, which is taken as the pull request.
  const other = await reviewed(c, 'a second fix');
  writeFileSync(
    c.ghLog,
    readFileSync(c.ghLog, 'utf8') +
      JSON.stringify({ env: { LAZY_BRANCH: `lazy/${other}` }, url: 'https://forge.example/o/r/pull/77' }) +
      '\n',
  );
  const found = await c.l.json('submit', other);
  t.equal(found.run.code, 0, 'exit 0, not 7');
  t.match(found.value, { url: 'https://forge.example/o/r/pull/77', pr: { exit_code: 1, error: null } });
  t.match((await ok(t, c, 'show', other)).submission, { ok: true, url: 'https://forge.example/o/r/pull/77' });
});

test('a failing PR command leaves the task submitted with the failure shown; submit retries it', async (t) => {
  const tm = team(1);
  t.teardown(tm.cleanup);
  const c = await clone(tm.clones[0]!);
  await ok(t, c, 'config', 'set', 'forge.pr_command', PR_COMMAND);
  const id = await reviewed(c);
  const failing = cli(c.sb, { FAKE_GH_LOG: c.ghLog, FAKE_GH_FAIL: 'no token' });
  const r = await failing.json('submit', id);
  t.equal(r.run.code, 7, 'an external program failed: exit 7');
  t.equal(r.value.task.status, 'submitted', 'the task stays submitted');
  t.equal(r.value.pr.exit_code, 1);
  t.match(r.value.pr.stderr, 'error: no token', "the command's output is returned");
  t.equal(r.value.url, null);
  const v = (await c.l.json('show', id)).value;
  t.match(v.submission, { ok: false, url: null, error: 'exit 1: error: no token' });
  t.equal(v.turns.at(-1).content, 'PR command failed: exit 1: error: no token');
  t.match((await c.l('show', id)).stdout, /the PR command failed \(exit 1: error: no token\)/, 'show says so');
  t.equal((await c.l.json('list')).value.find((x: any) => x.id === id).pr_url, null, 'no PR URL is listed');
  t.equal(remoteRef(tm.remote, `refs/heads/lazy/${id}`), v.submission.head, 'the branch was pushed all the same');
  const retry = await ok(t, c, 'submit', id);
  t.equal(retry.retried, true, 'the second submit is a retry');
  t.equal(retry.url, 'https://forge.example/o/r/pull/2', 'which records the new URL');
  const after = await ok(t, c, 'show', id);
  t.match(after.submission, { ok: true, url: retry.url, error: null });
  t.equal(after.changelog.filter((x: any) => x.status === 'submitted').length, 1, 'and makes no second transition');
  t.equal(after.turns.filter((x: any) => x.kind === 'submission').length, 2, 'each run is recorded');
  t.equal((await c.l.json('list')).value.find((x: any) => x.id === id).pr_url, retry.url);
});

test('no forge.pr_command: the branch is pushed and the task submitted, with no error', async (t) => {
  const tm = team(1);
  t.teardown(tm.cleanup);
  const c = await clone(tm.clones[0]!);
  const id = await reviewed(c);
  const s = await ok(t, c, 'submit', id, 'origin');
  t.equal(s.task.status, 'submitted');
  t.equal(s.pr, null, 'no command ran');
  t.equal(s.task.turns.at(-1).content, 'pushed; no forge.pr_command configured');
  t.match(s.task.submission, { ok: true, url: null, error: null, remote: 'origin' });
  t.equal(remoteRef(tm.remote, `refs/heads/lazy/${id}`), s.head, 'the branch is on the remote');
  t.equal(c.gh().length, 0);
  t.match((await c.l('submit', id, 'nowhere')).stderr, /no git remote named 'nowhere'/, 'an unknown remote is refused');
});

test('a shared pr_command that arrived by pull runs only once this clone trusts it', async (t) => {
  const tm = team(2);
  t.teardown(tm.cleanup);
  const a = await clone(tm.clones[0]!);
  const b = await clone(tm.clones[1]!);
  await ok(t, a, 'config', 'set', 'forge.pr_command', PR_COMMAND);
  await ok(t, a, 'push');
  await ok(t, b, 'pull');
  const listed = (await ok(t, b, 'config', 'list')).find((x: any) => x.key === 'forge.pr_command');
  t.equal(listed.untrusted, true, 'config list marks it untrusted');
  const id = await reviewed(b);
  const r = await b.l.json('submit', id);
  t.equal(r.run.code, 2, 'refused with the exit of a held agent command');
  t.equal(r.value.error.code, 'untrusted_config');
  t.match(r.value.error.message, /lazy config trust/, 'the error says how to trust it');
  t.equal((await b.l.json('show', id)).value.status, 'blocked', 'nothing transitioned');
  t.equal(remoteRef(tm.remote, `refs/heads/lazy/${id}`), '', 'nothing was pushed');
  t.equal(b.gh().length, 0, 'and the command never ran');
  await ok(t, b, 'config', 'trust');
  t.equal((await ok(t, b, 'submit', id)).url, 'https://forge.example/o/r/pull/1', 'trusted, it runs');
});

test('submit refuses what is not reviewed work: backlog, a failed turn, a conflict (exit 4)', async (t) => {
  const tm = team(1);
  t.teardown(tm.cleanup);
  const c = await clone(tm.clones[0]!);
  await ok(t, c, 'config', 'set', 'protected', 'config/**', '--local');
  const backlog = await c.l.create('not started');
  const failed = await reviewed(c, 'fails', 'auth');
  const conflict = await reviewed(c, 'touches a protected file', 'protected');
  t.equal((await c.l.json('show', conflict)).value.status, 'conflict');
  for (const [id, what, guard] of [
    [backlog, 'backlog', undefined],
    [failed, 'a failed turn', 'reviewed'],
    [conflict, 'a conflict', undefined],
  ] as const) {
    const r = await c.l.json('submit', id);
    t.equal(r.run.code, 4, `${what}: exit 4`);
    t.equal(r.value.error.code, 'action_not_allowed');
    if (guard) t.equal(r.value.error.details.guard, guard, `${what}: the guard is named`);
    t.equal(remoteRef(tm.remote, `refs/heads/lazy/${id}`), '', `${what}: nothing pushed`);
  }
  // A commit nobody reviewed (made in the task worktree after the turn) is not handed over either.
  const moved = await reviewed(c, 'reviewed, then moved');
  const wt = join(c.sb.dir, '.lazy', 'worktrees', moved);
  gitSync(wt, c.sb.env, ['commit', '-q', '--allow-empty', '-m', 'unreviewed']);
  const r = await c.l.json('submit', moved);
  t.equal(r.run.code, 4, 'an unreviewed head: exit 4');
  t.equal(r.value.error.code, 'unreviewed_head');
  t.match(r.value.error.message, /^submit refused: lazy\/\w+ moved since it was reviewed/, 'worded for submit');
  t.equal(remoteRef(tm.remote, `refs/heads/lazy/${moved}`), '', 'nothing pushed');
  t.equal(c.gh().length, 0);
});

test('a branch that diverged on the remote: exit 5, pull first, nothing transitioned or pushed', async (t) => {
  const tm = team(1);
  t.teardown(tm.cleanup);
  const c = await clone(tm.clones[0]!);
  const id = await reviewed(c);
  // A teammate's commit on the remote branch that this clone's branch does not contain.
  const tree = c.git('rev-parse', 'main^{tree}');
  const theirs = gitSync(c.sb.dir, c.sb.env, ['commit-tree', tree, '-p', 'main', '-m', 'theirs'], '').trim();
  c.git('push', '-q', 'origin', `${theirs}:refs/heads/lazy/${id}`);
  const r = await c.l.json('submit', id);
  t.equal(r.run.code, 5, 'exit 5');
  t.equal(r.value.error.code, 'push_rejected');
  t.match(r.value.error.message, new RegExp(`branch lazy/${id}.*pull first`), 'names the branch and says pull first');
  t.equal((await c.l.json('show', id)).value.status, 'blocked', 'nothing transitioned');
  t.equal(remoteRef(tm.remote, `refs/heads/lazy/${id}`), theirs, "the teammate's branch is not overwritten");
  t.equal(remoteRef(tm.remote, `refs/lazy/tasks/${id}`), '', 'the task ref did not go either (atomic)');
});

test('unblock on a submitted task runs a new turn; the next submit pushes it to the same branch', async (t) => {
  const tm = team(1);
  t.teardown(tm.cleanup);
  const c = await clone(tm.clones[0]!);
  const id = await reviewed(c);
  const first = await ok(t, c, 'submit', id);
  await ok(t, c, 'unblock', id, '-m', 'the reviewer wants the retry path covered');
  await c.l('wait', id, '--timeout', '60');
  const v = (await c.l.json('show', id)).value;
  t.same(
    v.changelog.slice(-3).map((x: any) => `${x.from}→${x.status}`),
    ['blocked→submitted', 'submitted→working', 'working→blocked'],
    'submitted → working → blocked',
  );
  const second = await ok(t, c, 'submit', id);
  t.equal(second.retried, false, 'a new hand-off');
  t.not(second.head, first.head, 'of the new work');
  t.equal(c.git('merge-base', '--is-ancestor', first.head, second.head), '', 'which builds on the first');
  t.equal(remoteRef(tm.remote, `refs/heads/lazy/${id}`), second.head, 'pushed to the same branch, fast-forward');
  const heads = second.task.changelog.filter((x: any) => x.status === 'submitted').map((x: any) => x.details.head);
  t.same(heads, [first.head, second.head], 'each submission records its head');
});

test('a missing PR program and a record the remote refuses: the submission stands, both are said (exit 7)', async (t) => {
  const tm = team(1);
  t.teardown(tm.cleanup);
  const c = await clone(tm.clones[0]!);
  await ok(t, c, 'config', 'set', 'forge.pr_command', 'no-such-forge-cli pr create');
  // The remote takes the first push of the task ref (with the branch) and refuses the next.
  writeFileSync(
    join(tm.remote, 'hooks', 'update'),
    '#!/bin/sh\ncase "$1" in refs/lazy/tasks/*)\n' +
      '  if [ -f "$GIT_DIR/seen" ]; then echo "task refs are read-only here" >&2; exit 1; fi\n' +
      '  touch "$GIT_DIR/seen";;\nesac\nexit 0\n',
  );
  chmodSync(join(tm.remote, 'hooks', 'update'), 0o755);
  const id = await reviewed(c);
  const r = await c.l.json('submit', id);
  t.equal(r.run.code, 7, 'an external program failed: exit 7');
  t.equal(r.value.task.status, 'submitted', 'the task is submitted all the same');
  t.match(r.value.pr, { exit_code: null, error: /could not run it: 'no-such-forge-cli' is not installed/ });
  t.match(r.value.push_error, { code: 'push_failed', exit: 7 }, 'the record that did not reach the remote is named');
  t.match(r.run.stderr, /is submitted here, but its record did not reach origin/, 'and warned about');
  t.equal(remoteRef(tm.remote, `refs/heads/lazy/${id}`), r.value.head, 'the branch is there');
  t.match((await ok(t, c, 'show', id)).submission, { ok: false, error: /no-such-forge-cli/ });
});

test('an accept of a submitted task that aborts restores submitted, its true prior status', async (t) => {
  const tm = team(1);
  t.teardown(tm.cleanup);
  const c = await clone(tm.clones[0]!);
  const id = await reviewed(c);
  await ok(t, c, 'submit', id, 'origin');
  // The target moves under the accept, into a conflict, between its steps.
  let step = '';
  const r = await lazyJson(['accept', id, '--yes'], {
    cwd: c.sb.dir,
    env: c.sb.env,
    io: {
      stepDelayMs: 1,
      narrate: (_i, _n, label) => void (step = label),
      clock: {
        ...systemClock,
        sleep: async () => {
          if (step !== 'squash-merge into the target') return;
          writeFileSync(join(c.sb.dir, 'work-1.txt'), 'mine\n');
          c.git('add', 'work-1.txt');
          c.git('commit', '-q', '-m', 'a conflicting change');
        },
      },
    },
  });
  t.equal(r.value.error?.code, 'merge_failed', r.run.stdout);
  t.match(r.value.error.message, /the task is submitted again/);
  const v = (await c.l.json('show', id)).value;
  t.equal(v.status, 'submitted');
  t.same(
    v.changelog.slice(-2).map((x: any) => [x.status, x.trigger]),
    [
      ['merging', 'accept'],
      ['submitted', 'merge_abort'],
    ],
  );
  // Still watched upstream: the submission is read from its submit entry, not from the abort's return.
  c.git('push', '-q', 'origin', 'main:refs/heads/side');
  gitSync(tm.remote, process.env, ['update-ref', 'refs/heads/main', 'refs/heads/side']);
  const pulled = await ok(t, c, 'pull');
  t.same(pulled.branches.targets, ['main'], "the pull fetched the target's new tip");
});

test('the submitting clone watches its submission: a pull request closed on the forge is seen after a plain fetch', async (t) => {
  const tm = team(1);
  t.teardown(tm.cleanup);
  const c = await clone(tm.clones[0]!);
  await c.l('list'); // a settle with nothing submitted: nothing is watched yet
  const id = await reviewed(c);
  await ok(t, c, 'submit', id, 'origin');
  gitSync(tm.remote, process.env, ['update-ref', '-d', `refs/heads/lazy/${id}`]);
  c.git('fetch', '-q', '--prune', 'origin');
  const r = await c.l('list');
  t.match(r.stderr, new RegExp(`task ${id}: closed without merge: origin deleted lazy/${id}`));
  t.equal((await c.l.json('show', id)).value.status, 'blocked');
});
