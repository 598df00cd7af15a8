import { existsSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli, gitSync, type Sandbox } from '../helpers/env.js';
import { team, withFakeAgent } from '../helpers/team.js';
import { concurrent } from '../helpers/concurrent.js';
import { withEnv } from '../../lib/core/env.js';
import { openRepo } from '../../lib/core/repo.js';
import { Store } from '../../lib/store/store.js';
import { loadConfig } from '../../lib/store/config/index.js';
import { settleSubmitted } from '../../lib/reconcile/upstream/index.js';
import type { ReconcileAction } from '../../lib/reconcile/action.js';
import { upstreamDue } from '../../lib/reconcile/upstream/due.js';

// A submitted task's outcome on the forge, detected from git alone. The forge is a bare
// remote; its merge button is plain git in a maintainer's clone (M). Clone A runs the task,
// pushes its branch and submits it; clone C is a teammate that never submitted it.

const test = concurrent(4);

interface Forge {
  a: Sandbox;
  m: Sandbox;
  c: Sandbox;
  la: ReturnType<typeof cli>;
  lc: ReturnType<typeof cli>;
  ga: (...args: string[]) => string;
  gm: (...args: string[]) => string;
  gc: (...args: string[]) => string;
}

async function forge(t: { teardown(f: () => unknown): void }): Promise<Forge> {
  const tm = team(3, 'lazy-forge');
  t.teardown(tm.cleanup);
  const [a, m, c] = tm.clones as [Sandbox, Sandbox, Sandbox];
  await withFakeAgent(a);
  const g =
    (sb: Sandbox) =>
    (...args: string[]) =>
      gitSync(sb.dir, sb.env, args);
  return { a, m, c, la: cli(a), lc: cli(c), ga: g(a), gm: g(m), gc: g(c) };
}

/** Runs settleSubmitted in-process in a clone (what pull and submit call), returning its actions. */
async function settle(sb: Sandbox): Promise<ReconcileAction[]> {
  return withEnv(sb.env, async () => {
    const repo = await openRepo(sb.dir);
    const store = new Store(repo, 'human');
    try {
      const actions: ReconcileAction[] = [];
      const config = async () => (await loadConfig(repo, store.reader.objects)).merged;
      await settleSubmitted({ repo, store, config }, actions);
      return actions;
    } finally {
      store.close();
    }
  });
}

/**
 * A's task run to review, its branch pushed, then moved to submitted with the details `lazy submit`
 * records (written through the store), then settled as submit does.
 */
async function submittedTask(
  f: Forge,
  goal: string,
  scenario = 'succeed',
  extra?: (id: string) => void,
): Promise<string> {
  const id = await f.la.create(goal, '--accept', 'done');
  const l = cli(f.a, { FAKE_SCENARIO: scenario });
  await l('start', id);
  const w = await l.json('wait', id, '--timeout', '30');
  if (w.value.task.status !== 'blocked') throw new Error(`not reviewed: ${w.run.stdout}`);
  extra?.(id);
  f.ga('push', '-q', 'origin', `lazy/${id}`);
  const head = f.ga('rev-parse', `lazy/${id}`).trim();
  const tip = f.ga('rev-parse', 'refs/remotes/origin/main').trim();
  await withEnv(f.a.env, async () => {
    const store = new Store(await openRepo(f.a.dir), 'human');
    try {
      await store.mutate(id, 'submit', (d) => {
        d.transition('submitted', 'submit', 'submitted to origin', {
          details: { remote: 'origin', branch: `lazy/${id}`, target: 'main', head, target_tip: tip },
        });
      });
    } finally {
      store.close();
    }
  });
  await settle(f.a);
  return id;
}

/** M, the forge's merge button: fetch, then main as the remote has it. */
function freshMain(f: Forge): void {
  f.gm('fetch', '-q', 'origin');
  f.gm('checkout', '-q', '-B', 'main', 'origin/main');
}

function commitIn(f: Forge, file: string, text: string, message: string): string {
  writeFileSync(join(f.m.dir, file), text);
  f.gm('add', file);
  f.gm('commit', '-q', '-m', message);
  return f.gm('rev-parse', 'HEAD').trim();
}

/** A second commit on the task branch, by hand in its worktree. */
const secondCommit = (f: Forge) => (id: string) => {
  const wt = worktree(f.a, id);
  writeFileSync(join(wt, `second-${id}.txt`), 'more\n');
  gitSync(wt, f.a.env, ['add', '.']);
  gitSync(wt, f.a.env, ['commit', '-q', '-m', 'a second commit']);
};

const last = (v: any) => v.changelog.filter((c: any) => !c.set_aside).at(-1);
const worktree = (sb: Sandbox, id: string) => join(sb.dir, '.lazy', 'worktrees', id);

test('a merge commit on the forge completes the task on the next command after a fetch, cleaned up as accept does', async (t) => {
  const f = await forge(t);
  const id = await submittedTask(f, 'merge me');
  const head = f.ga('rev-parse', `lazy/${id}`).trim();
  t.equal((await f.la.json('show', id)).value.status, 'submitted', 'nothing merged yet');
  freshMain(f);
  f.gm('merge', '-q', '--no-ff', '-m', 'Merge pull request #1', `origin/lazy/${id}`);
  const merge = f.gm('rev-parse', 'HEAD').trim();
  f.gm('push', '-q', 'origin', 'main');
  // C, a teammate that never had the branch, sees the merge from its own fetch.
  t.equal((await f.la('push')).code, 0);
  await f.lc('pull');
  f.gc('fetch', '-q', 'origin');
  const onC = last((await f.lc.json('show', id)).value);
  t.same([onC.status, onC.details?.how, onC.details?.commit], ['complete', 'contains', merge], 'C detects it too');
  f.ga('fetch', '-q', 'origin');
  t.equal((await f.la('list')).code, 0);
  const v = (await f.la.json('show', id)).value;
  t.equal(v.status, 'complete', 'detected from the fetched target');
  const done = last(v);
  t.equal(`${done.from}:${done.trigger}:${done.actor}`, 'submitted:merge_done:system');
  t.same(done.details, { target: 'main', commit: merge, head, how: 'contains', remote: 'origin' });
  t.equal(v.sessions.at(-1).outcome, 'accepted');
  t.equal(f.ga('branch', '--list', `lazy/${id}`).trim(), '', 'the local branch is deleted');
  t.notOk(existsSync(worktree(f.a, id)), 'the worktree is removed');
});

test('a fast-forward on the forge completes the task, recording the head', async (t) => {
  const f = await forge(t);
  const id = await submittedTask(f, 'fast-forward me');
  const head = f.ga('rev-parse', `lazy/${id}`).trim();
  freshMain(f);
  f.gm('merge', '-q', '--ff-only', `origin/lazy/${id}`);
  f.gm('push', '-q', 'origin', 'main');
  f.ga('fetch', '-q', 'origin');
  const done = last((await f.la.json('show', id)).value);
  t.equal(done.status, 'complete');
  t.same([done.details.how, done.details.commit], ['contains', head]);
});

test('a squash with a different message is found by the patch-id of the squashed diff', async (t) => {
  const f = await forge(t);
  // Two commits on the branch: the squash matches neither alone.
  const id = await submittedTask(f, 'squash me', 'succeed', secondCommit(f));
  freshMain(f);
  commitIn(f, 'other.txt', 'unrelated\n', 'someone else landed first');
  f.gm('merge', '-q', '--squash', `origin/lazy/${id}`);
  f.gm('commit', '-q', '-m', 'Add the work file (#7)');
  const squash = f.gm('rev-parse', 'HEAD').trim();
  f.gm('push', '-q', 'origin', 'main');
  f.ga('fetch', '-q', 'origin');
  const done = last((await f.la.json('show', id)).value);
  t.equal(done.status, 'complete', 'merged under another hash and message');
  t.same([done.details.how, done.details.commit], ['patch-id', squash]);
});

test("a rebase merge of lazy's own commits is found by their Lazy-Task trailer; of plain commits by patch-ids", async (t) => {
  const f = await forge(t);
  // succeed-dirty leaves the work uncommitted: lazy commits it with the Lazy-Task trailer.
  const own = await submittedTask(f, 'rebase lazy commits', 'succeed-dirty');
  const plain = await submittedTask(f, 'rebase plain commits', 'succeed', secondCommit(f));
  freshMain(f);
  commitIn(f, 'other.txt', 'unrelated\n', 'someone else landed first');
  for (const id of [own, plain]) {
    f.gm('checkout', '-q', '-B', 'pr', `origin/lazy/${id}`);
    f.gm('rebase', '-q', 'main');
    f.gm('checkout', '-q', 'main');
    f.gm('merge', '-q', '--ff-only', 'pr');
  }
  const [ownCommit, plainCommit] = [f.gm('rev-parse', 'HEAD~2').trim(), f.gm('rev-parse', 'HEAD').trim()];
  f.gm('push', '-q', 'origin', 'main');
  f.ga('fetch', '-q', 'origin');
  const a = last((await f.la.json('show', own)).value);
  t.equal(a.status, 'complete');
  t.same([a.details.how, a.details.commit], ['trailer', ownCommit]);
  const b = last((await f.la.json('show', plain)).value);
  t.equal(b.status, 'complete');
  t.same([b.details.how, b.details.commit], ['patch-id', plainCommit]);
});

test('a branch deleted without a merge returns the task to blocked, only on a clone that saw it', async (t) => {
  const f = await forge(t);
  const id = await submittedTask(f, 'close me');
  f.gm('push', '-q', 'origin', '--delete', `lazy/${id}`);
  // C pulls the task after the deletion: it never saw the branch, so it has no evidence.
  t.equal((await f.la('push')).code, 0);
  t.equal((await f.lc('pull')).code, 0);
  f.gc('fetch', '-q', '--prune', 'origin');
  t.same(await settle(f.c), [], 'C judges nothing');
  t.equal((await f.lc.json('show', id)).value.status, 'submitted', 'and the task stays submitted there');
  f.ga('fetch', '-q', '--prune', 'origin');
  const r = await f.la('list');
  t.match(r.stderr, new RegExp(`task ${id}: closed without merge: origin deleted lazy/${id}`));
  const v = (await f.la.json('show', id)).value;
  t.equal(v.status, 'blocked');
  const e = last(v);
  t.same(
    [e.from, e.trigger, e.actor, e.reason],
    ['submitted', 'pr_closed', 'system', `closed without merge: origin deleted lazy/${id}`],
  );
  t.equal(v.attention.kind, 'review', 'in the inbox for review');
  t.ok(f.ga('branch', '--list', `lazy/${id}`).trim(), 'the local branch and its work stay');
});

test('commits someone else pushed to the submitted branch are reported and shown; an unrelated commit on the target changes nothing', async (t) => {
  const f = await forge(t);
  const id = await submittedTask(f, 'collaborate');
  f.gm('fetch', '-q', 'origin');
  f.gm('checkout', '-q', '-B', 'pr', `origin/lazy/${id}`);
  commitIn(f, 'review-fix.txt', 'fix\n', 'review: fix a typo');
  f.gm('push', '-q', 'origin', `pr:lazy/${id}`);
  freshMain(f);
  commitIn(f, 'other.txt', 'unrelated\n', 'an unrelated change');
  f.gm('push', '-q', 'origin', 'main');
  f.ga('fetch', '-q', 'origin');
  const r = await f.la('list');
  t.match(r.stderr, new RegExp(`task ${id}: 1 new commit\\(s\\) on origin/lazy/${id}`), 'reported once fetched');
  const v = (await f.la.json('show', id)).value;
  t.equal(v.status, 'submitted', 'an unrelated commit on the target is no merge');
  t.equal(v.branch_news.ref, `origin/lazy/${id}`);
  t.same(
    v.branch_news.commits.map((c: any) => c.subject),
    ['review: fix a typo'],
    'show lists them as concurrent changes of the branch',
  );
  t.match(
    (await f.la('show', id)).stdout,
    /concurrent changes on origin\/lazy\/\w+: 1 new commit\(s\)[^\n]*\n\s+\w{10} review: fix a typo/,
  );
  t.same(
    (await settle(f.a)).map((x) => x.action),
    ['new-commits'],
    'settling again reports them again, and nothing else',
  );
});

/**
 * The stamps' folders (and packed-refs) as they are once their last change is older than the racy window:
 * what waiting 2 s would do, without waiting. A change after this stamps them with the real time again.
 */
function aged(sb: Sandbox): void {
  const then = new Date(Date.now() - 10_000);
  const remotes = join(sb.dir, '.git', 'refs', 'remotes');
  for (const p of [join(remotes, 'origin'), join(remotes, 'origin', 'lazy'), join(sb.dir, '.git', 'packed-refs')])
    if (existsSync(p)) utimesSync(p, then, then);
}

test('the settle runs only when a remote-tracking ref may have moved: a readdir and two stats per remote', async (t) => {
  const f = await forge(t);
  const repo = await openRepo(f.a.dir);
  await settle(f.a);
  const now0 = new Date();
  utimesSync(join(f.a.dir, '.git', 'refs', 'remotes', 'origin'), now0, now0);
  t.notOk(upstreamDue(repo), 'with no submitted task a moved tracking ref changes nothing: not due');
  // submit settles, so from here on the task is watched.
  await submittedTask(f, 'watched');
  // A folder changed in the last 2 s is racy: a ref written in the same tick would not change its stamp.
  const now = new Date();
  utimesSync(join(f.a.dir, '.git', 'refs', 'remotes', 'origin'), now, now);
  t.ok(upstreamDue(repo), 'due again right after a change (racy)');
  aged(f.a);
  await settle(f.a);
  t.notOk(upstreamDue(repo), 'nothing moved since the last settle: not due');
  freshMain(f);
  commitIn(f, 'other.txt', 'unrelated\n', 'an unrelated change');
  f.gm('push', '-q', 'origin', 'main');
  f.ga('fetch', '-q', 'origin');
  t.ok(upstreamDue(repo), 'a fetch that moved origin/main makes it due');
  aged(f.a);
  await settle(f.a);
  t.notOk(upstreamDue(repo));
  f.ga('update-ref', `refs/remotes/origin/lazy/abcd2345`, 'HEAD');
  t.ok(upstreamDue(repo), 'so does a new task branch tracking ref');
  aged(f.a);
  await settle(f.a);
  f.ga('pack-refs', '--all');
  t.ok(upstreamDue(repo), 'and packing them');
});
