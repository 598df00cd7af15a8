import t from 'tap';
import { writeFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { agentSandbox, reviewed, type AgentBox } from '../helpers/agent.js';
import { gitSync, lazyJson, type Sandbox } from '../helpers/env.js';
import { ACCEPT_STEPS, type Touch } from '../../lib/ops/accept/index.js';
import { systemClock } from '../../lib/core/clock.js';

// lib/ops/accept/index.ts in this process: accept as the steps of ACCEPT_STEPS. Each step has its
// group below (`preflight: …`, `squash-merge: …`, `verify: …`, `clean up: …`), beside the
// tests of the whole accept and of the table itself (what each step may touch, and the
// rule that settles a step that fails). Real SIGKILLs: test/cli/accept-crash.test.ts.

/**
 * Runs accept in this process; `at(label)` runs at the start of each step, after its
 * narration and before its work (the port's pause between steps, replaced by the test).
 */
function acceptWith(sb: Sandbox, id: string, at: (label: string) => unknown, ...args: string[]) {
  let step = '';
  return lazyJson(['accept', id, '--yes', ...args], {
    cwd: sb.dir,
    env: sb.env,
    io: {
      stepDelayMs: 1,
      narrate: (_i, _n, label) => void (step = label),
      clock: { ...systemClock, sleep: async () => void (await at(step)) },
    },
  });
}

const git = (sb: Sandbox, cwd: string, ...args: string[]) =>
  spawnSync('git', args, { cwd, env: sb.env, encoding: 'utf8' }).stdout.trim();

/** What each Touch names, as it can be seen from outside. */
function world(sb: Sandbox, id: string): Record<Touch, string> {
  const wt = join(sb.dir, '.lazy', 'worktrees', id);
  const tree = (cwd: string) => [git(sb, cwd, 'rev-parse', 'HEAD'), git(sb, cwd, 'status', '--porcelain', '-uall')];
  return {
    'task ref': git(sb, sb.dir, 'rev-parse', '-q', '--verify', `refs/lazy/tasks/${id}`),
    'task branch': git(sb, sb.dir, 'rev-parse', '-q', '--verify', `refs/heads/lazy/${id}`),
    'task worktree': existsSync(wt) ? [...tree(wt), readFileSync(join(wt, '.git'), 'utf8')].join('\n') : 'absent',
    'target branch': git(sb, sb.dir, 'rev-parse', 'refs/heads/main'),
    'target checkout': [...tree(sb.dir), git(sb, sb.dir, 'rev-parse', '-q', '--verify', 'refs/stash')].join('\n'),
  };
}

const statuses = (v: any, n: number) => v.changelog.slice(-n).map((c: any) => [c.status, c.trigger, c.actor]);
const squashes = (sb: Sandbox, id: string) =>
  gitSync(sb.dir, sb.env, ['log', '--format=%s', 'main'])
    .split('\n')
    .filter((s) => s.startsWith(`Accept task ${id}`)).length;

t.test('accept squash-merges exactly the task into its base, then cleans up', async (t) => {
  const box = await agentSandbox();
  const { sb, l } = box;
  t.teardown(sb.cleanup);
  const id = await reviewed(box, 'add the first work file');
  const before = gitSync(sb.dir, sb.env, ['rev-parse', 'main']).trim();
  const r = await l.json('accept', id, '--yes');
  t.equal(r.run.code, 0, r.run.stderr);
  t.equal(r.value.task.status, 'complete');
  const head = gitSync(sb.dir, sb.env, ['log', '-1', '--format=%H%n%P%n%B', 'main']).trim().split('\n');
  t.equal(head[0], r.value.commit);
  t.equal(head[1], before, 'one squash commit on top of the old tip');
  t.equal(head[2], `Accept task ${id}: add the first work file`);
  t.ok(head.includes(`Lazy-Task: ${id}`), 'the commit carries the Lazy-Task trailer');
  t.equal(gitSync(sb.dir, sb.env, ['show', 'main:work-1.txt']), 'turn 1\n', 'the work landed');
  t.equal(readFileSync(join(sb.dir, 'work-1.txt'), 'utf8'), 'turn 1\n', 'and the checkout of main was updated');
  t.notOk(existsSync(join(sb.dir, '.lazy', 'worktrees', id)), 'worktree removed');
  t.equal(
    gitSync(sb.dir, sb.env, ['branch', '--list', `lazy/${id}`]).trim(),
    '',
    'branch deleted after the target moved',
  );
  t.same(
    r.value.task.changelog.slice(-2).map((c: any) => c.status),
    ['merging', 'complete'],
  );
  t.equal(r.value.task.sessions.at(-1).outcome, 'accepted');
  t.match(
    r.run.stderr,
    /accept: preflight\naccept: squash-merge into the target\naccept: verify the target moved\naccept: clean up branch and worktree/,
    'a plain line per step when not on a terminal (stderr under --json)',
  );
  const again = await l.json('accept', id, '--yes');
  t.equal(again.run.code, 4, 'accepting a complete task is refused');
});

t.test('the table: each step changes only what its entry says it may touch', async (t) => {
  const cases: [string, Record<string, string>, (box: AgentBox) => Promise<string[]>][] = [
    [
      'a dirty target checkout (stashed and restored)',
      {},
      async (box) => {
        writeFileSync(join(box.sb.dir, 'README.md'), '# sandbox\nmy local edit\n');
        return [];
      },
    ],
    [
      'a protected file reverted by the accept',
      { protected: 'config/**' },
      async (box) => {
        box.scenario('protected');
        return ['--revert-file', 'config/secrets.env'];
      },
    ],
  ];
  for (const [name, settings, prepare] of cases) {
    const box = await agentSandbox({ settings });
    t.teardown(box.sb.cleanup);
    const args = await prepare(box);
    const id = await reviewed(box);
    const seen: [string, Record<Touch, string>][] = [];
    const r = await acceptWith(box.sb, id, (label) => seen.push([label, world(box.sb, id)]), ...args);
    t.equal(r.run.code, 0, `${name}: ${r.run.stderr}`);
    t.same(
      seen.map(([label]) => label),
      ACCEPT_STEPS.map((s) => s.label),
      `${name}: every step ran, in order`,
    );
    const after = [...seen.slice(1).map(([, w]) => w), world(box.sb, id)];
    const changed = new Set<Touch>();
    for (const [i, step] of ACCEPT_STEPS.entries()) {
      const [, before] = seen[i]!;
      for (const k of Object.keys(before) as Touch[]) {
        if (before[k] === after[i]![k]) continue;
        changed.add(k);
        t.ok(step.touches.includes(k), `${name}: "${step.label}" changed the ${k}, which its entry lists`);
      }
    }
    t.ok(changed.size >= 3, `${name}: the accept changed something (${[...changed].join(', ')})`);
  }
});

t.test('the table: a step that fails is settled by its own ifKilled', async (t) => {
  const box = await agentSandbox();
  const { sb, l } = box;
  t.teardown(sb.cleanup);
  const first = await reviewed(box, 'first');
  const second = await reviewed(box, 'second');
  // What the task reads after a failure at the start of each step, by the step's rule:
  // restore (nothing moved the target yet), or settle (the target decides).
  const expected: Record<string, { task: string; status: string; tail: string[][] }> = {
    preflight: { task: first, status: 'blocked', tail: [] },
    'squash-merge into the target': {
      task: first,
      status: 'blocked',
      tail: [
        ['merging', 'accept', 'human'],
        ['blocked', 'merge_abort', 'system'],
      ],
    },
    'verify the target moved': {
      task: first,
      status: 'complete',
      tail: [
        ['merging', 'accept', 'human'],
        ['zombie', 'zombie', 'system'],
        ['complete', 'merge_done', 'system'],
      ],
    },
    'clean up branch and worktree': {
      task: second,
      status: 'complete',
      tail: [
        ['merging', 'accept', 'human'],
        ['zombie', 'zombie', 'system'],
        ['complete', 'merge_done', 'system'],
      ],
    },
  };
  t.same(
    Object.keys(expected),
    ACCEPT_STEPS.map((s) => s.label),
    'one case per step of the table',
  );
  for (const step of ACCEPT_STEPS) {
    const e = expected[step.label]!;
    const r = await acceptWith(sb, e.task, (label) => {
      if (label === step.label) throw new Error(`failed in ${label}`);
    });
    t.equal(r.run.code, 1, `${step.label}: the failure is reported`);
    t.match(r.value.error.message, `failed in ${step.label}`);
    const v = (await l.json('show', e.task)).value;
    t.equal(v.status, e.status, `${step.label} (${step.ifKilled}): the task is ${e.status}`);
    if (e.tail.length) t.same(statuses(v, e.tail.length), e.tail, `${step.label}: settled by the system actor`);
    else
      t.notOk(
        v.changelog.some((c: any) => c.status === 'merging'),
        `${step.label}: never claimed`,
      );
    t.equal(squashes(sb, e.task), e.status === 'complete' ? 1 : 0, `${step.label}: the target agrees`);
    t.notOk(existsSync(join(sb.dir, '.git', 'lazy', 'active', `${e.task}.json`)), `${step.label}: no marker left`);
  }
});

t.test('preflight: the claim names the step in the marker, with its rule, before the target moves', async (t) => {
  const box = await agentSandbox();
  const { sb } = box;
  t.teardown(sb.cleanup);
  const id = await reviewed(box);
  const main = gitSync(sb.dir, sb.env, ['rev-parse', 'main']).trim();
  const marker = join(sb.dir, '.git', 'lazy', 'active', `${id}.json`);
  const seen: Record<string, unknown> = {};
  const r = await acceptWith(sb, id, async (label) => {
    const m = existsSync(marker) ? JSON.parse(readFileSync(marker, 'utf8')) : null;
    const v = (await box.l.json('show', id)).value;
    seen[label] = [v.status, m && [m.kind, m.step, m.if_killed]];
    if (label === 'squash-merge into the target')
      t.equal(gitSync(sb.dir, sb.env, ['rev-parse', 'main']).trim(), main, 'the target has not moved yet');
  });
  t.equal(r.run.code, 0, r.run.stderr);
  t.same(seen, {
    preflight: ['blocked', null],
    'squash-merge into the target': ['merging', ['accept', 'squash-merge into the target', 'settle']],
    'verify the target moved': ['merging', ['accept', 'verify the target moved', 'settle']],
    'clean up branch and worktree': ['merging', ['accept', 'clean up branch and worktree', 'settle']],
  });
  t.equal(ACCEPT_STEPS[0]!.ifKilled, 'restore', 'preflight, which never moves the target, restores');
  t.notOk(existsSync(marker), 'the marker goes with the accept');
});

t.test('preflight: a dirty task worktree is refused and nothing changes', async (t) => {
  const box = await agentSandbox();
  t.teardown(box.sb.cleanup);
  const id = await reviewed(box);
  writeFileSync(join(box.sb.dir, '.lazy', 'worktrees', id, 'scratch.txt'), 'uncommitted');
  const r = await box.l.json('accept', id, '--yes');
  t.equal(r.run.code, 4);
  t.match(r.value.error.message, /uncommitted changes: scratch\.txt/);
  t.equal((await box.l.json('show', id)).value.status, 'blocked');
});

t.test('preflight: subtasks stack on the parent branch and merge into it; an active parent refuses', async (t) => {
  const box = await agentSandbox();
  const { sb, l, scenario } = box;
  t.teardown(sb.cleanup);
  const parent = await reviewed(box, 'parent work');
  const child = await l.create('child work', '--parent', parent, '--accept', 'done');
  await l('start', child);
  await l('wait', child, '--timeout', '30');
  gitSync(sb.dir, sb.env, ['merge-base', '--is-ancestor', `lazy/${parent}`, `lazy/${child}`]);
  t.pass("the child's branch stacks on the parent's");
  const tree = await l('list', '--tree');
  t.match(tree.stdout, new RegExp(`${parent}.*\\n└─ ${child}`), 'list --tree shows the hierarchy');
  const mainBefore = gitSync(sb.dir, sb.env, ['rev-parse', 'main']).trim();
  const ok = await l.json('accept', child, '--yes');
  t.equal(ok.run.code, 0, ok.run.stdout);
  t.equal(ok.value.target, `lazy/${parent}`, "a child merges into its parent's branch");
  t.match(
    gitSync(sb.dir, sb.env, ['log', '-1', '--format=%s', `lazy/${parent}`]),
    new RegExp(`Accept task ${child}: child work`),
  );
  t.equal(gitSync(sb.dir, sb.env, ['rev-parse', 'main']).trim(), mainBefore, 'main is untouched');

  const second = await l.create('second child', '--parent', parent, '--accept', 'done');
  await l('start', second);
  await l('wait', second, '--timeout', '30');
  scenario('hang');
  await l('unblock', parent, '-m', 'keep going');
  const refused = await l.json('accept', second, '--yes');
  t.equal(refused.run.code, 4, 'a working parent refuses the merge');
  t.equal(refused.value.error.details.parent_status, 'working');
  await l('stop', parent);
  const again = await l.json('accept', second, '--yes');
  t.equal(again.run.code, 4, 'an interrupted parent refuses too');
  t.equal(again.value.error.details.parent_status, 'interrupted');
  t.equal((await l.json('show', second)).value.status, 'blocked', 'the refused child is unchanged');
});

t.test('squash-merge: a dirty target checkout is stashed and restored, never lost', async (t) => {
  const box = await agentSandbox();
  const { sb, l } = box;
  t.teardown(sb.cleanup);
  const id = await reviewed(box);
  writeFileSync(join(sb.dir, 'README.md'), '# sandbox\nmy local edit\n');
  writeFileSync(join(sb.dir, 'notes.txt'), 'untracked notes\n');
  const r = await l.json('accept', id, '--yes');
  t.equal(r.run.code, 0);
  t.equal(r.value.stash.restored, true);
  t.equal(readFileSync(join(sb.dir, 'README.md'), 'utf8'), '# sandbox\nmy local edit\n', 'tracked edit restored');
  t.equal(readFileSync(join(sb.dir, 'notes.txt'), 'utf8'), 'untracked notes\n', 'untracked file restored');
  t.equal(gitSync(sb.dir, sb.env, ['stash', 'list']).trim(), '', 'no stash left behind');
});

t.test(
  'squash-merge: a stash that cannot be restored: the merge stands and the user is told how to recover',
  async (t) => {
    const box = await agentSandbox();
    const { sb, l } = box;
    t.teardown(sb.cleanup);
    const id = await reviewed(box);
    writeFileSync(join(sb.dir, 'work-1.txt'), 'my own version\n'); // collides with the file the task adds
    const r = await l.json('accept', id, '--yes');
    t.equal(r.run.code, 0, 'the merge still succeeds');
    t.equal(r.value.task.status, 'complete');
    t.equal(r.value.stash.restored, false);
    t.match(r.value.warnings[0], new RegExp(`kept in stash ${r.value.stash.id}`));
    t.match(r.value.warnings[0], /git stash pop/);
    t.equal(gitSync(sb.dir, sb.env, ['rev-parse', 'stash@{0}']).trim(), r.value.stash.id, 'the stash is still there');
    t.equal(
      gitSync(sb.dir, sb.env, ['show', `${r.value.stash.id}^3:work-1.txt`]),
      'my own version\n',
      "the user's file is in it",
    );
    t.equal(
      gitSync(sb.dir, sb.env, ['status', '--porcelain']).trim(),
      '',
      'the checkout is clean at the merged commit',
    );
    const text = await l('show', id);
    t.equal(text.code, 0);
  },
);

t.test('squash-merge: a target that moved meanwhile is merged onto its new tip', async (t) => {
  const box = await agentSandbox();
  const { sb } = box;
  t.teardown(sb.cleanup);
  const id = await reviewed(box, 'add work');
  const r = await acceptWith(sb, id, (label) => {
    if (label === 'squash-merge into the target')
      gitSync(sb.dir, sb.env, ['commit', '-q', '--allow-empty', '-m', 'someone else landed first']);
  });
  t.equal(r.run.code, 0, r.run.stderr);
  t.equal(r.value.task.status, 'complete');
  const [subject, parent] = gitSync(sb.dir, sb.env, ['log', '-2', '--format=%s', 'main']).trim().split('\n');
  t.equal(subject, `Accept task ${id}: add work`);
  t.equal(parent, 'someone else landed first', 'planned again on the new tip');
});

t.test('squash-merge: a target that now conflicts aborts the accept and restores the task', async (t) => {
  const box = await agentSandbox();
  const { sb, l } = box;
  t.teardown(sb.cleanup);
  const id = await reviewed(box);
  const r = await acceptWith(sb, id, (label) => {
    if (label !== 'squash-merge into the target') return;
    writeFileSync(join(sb.dir, 'work-1.txt'), 'mine\n');
    gitSync(sb.dir, sb.env, ['add', 'work-1.txt']);
    gitSync(sb.dir, sb.env, ['commit', '-q', '-m', 'a conflicting change']);
  });
  t.equal(r.run.code, 4);
  t.equal(r.value.error.code, 'merge_failed');
  t.match(r.value.error.message, /main kept moving or now conflicts; the task is blocked again/);
  t.equal(r.value.error.details.status, 'blocked');
  const v = (await l.json('show', id)).value;
  t.same(statuses(v, 2), [
    ['merging', 'accept', 'human'],
    ['blocked', 'merge_abort', 'human'],
  ]);
  t.equal(squashes(sb, id), 0, 'nothing landed');
});

t.test('verify: a target that does not hold the squash commit aborts and keeps the work', async (t) => {
  const box = await agentSandbox();
  const { sb, l } = box;
  t.teardown(sb.cleanup);
  const id = await reviewed(box);
  const main = gitSync(sb.dir, sb.env, ['rev-parse', 'main']).trim();
  const r = await acceptWith(sb, id, (label) => {
    if (label === 'verify the target moved') gitSync(sb.dir, sb.env, ['reset', '-q', '--hard', main]);
  });
  t.equal(r.run.code, 1);
  t.equal(r.value.error.code, 'merge_failed');
  t.match(r.value.error.message, /main does not contain the squash commit/);
  const v = (await l.json('show', id)).value;
  t.same(statuses(v, 2), [
    ['merging', 'accept', 'human'],
    ['blocked', 'merge_abort', 'human'],
  ]);
  t.ok(existsSync(join(sb.dir, '.lazy', 'worktrees', id)), 'the worktree stays');
  t.ok(git(sb, sb.dir, 'rev-parse', '-q', '--verify', `refs/heads/lazy/${id}`), 'and the branch');
});

t.test('clean up: what cannot be removed is a warning; the task is complete', async (t) => {
  const box = await agentSandbox();
  const { sb } = box;
  t.teardown(sb.cleanup);
  const id = await reviewed(box);
  const wt = join(sb.dir, '.lazy', 'worktrees', id);
  const r = await acceptWith(sb, id, (label) => {
    if (label === 'clean up branch and worktree') gitSync(sb.dir, sb.env, ['worktree', 'lock', wt]);
  });
  t.teardown(() => void spawnSync('git', ['worktree', 'unlock', wt], { cwd: sb.dir, env: sb.env }));
  t.equal(r.run.code, 0, r.run.stderr);
  t.equal(r.value.task.status, 'complete');
  t.same([r.value.worktree_removed, r.value.branch_deleted], [false, false]);
  t.match(r.value.warnings, [new RegExp(`^worktree ${wt} was not removed: `), `branch lazy/${id} was not deleted`]);
  t.equal(squashes(sb, id), 1);
});
