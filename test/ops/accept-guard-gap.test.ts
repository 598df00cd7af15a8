import t from 'tap';
import { cli, gitSync, type Sandbox } from '../helpers/env.js';
import { team, withFakeAgent } from '../helpers/team.js';

// `lazy pull` fast-forwards a task branch to commits a teammate pushed after its review; accept refuses them
// (unreviewed_head). `lazy show` says so, in text and in --json, from the very fact accept's refusal reads
// (lib/ops/accept/guard.ts reviewGap), and names the remote the pull brought them from.

async function clones() {
  const tm = team(2, 'lazy-gap');
  const c = [];
  for (const [i, sb] of tm.clones.entries()) {
    const env = { ...sb.env, LAZY_HOST: `host-${'ab'[i]}` };
    await withFakeAgent({ ...sb, env });
    const box: Sandbox = { ...sb, env };
    c.push({ sb: box, l: cli(box), git: (...args: string[]) => gitSync(sb.dir, env, args).trim() });
  }
  return { tm, a: c[0]!, b: c[1]! };
}

t.test('show says when the task branch holds commits pulled after its review; accept refuses the same', async (t) => {
  const { tm, a, b } = await clones();
  t.teardown(tm.cleanup);
  const id = await a.l.create('write the work file', '--accept', 'the file exists');
  t.equal((await a.l('start', id)).code, 0);
  t.equal((await a.l.json('wait', id, '--timeout', '30')).value.task.status, 'blocked', 'reviewed on A');
  t.equal((await a.l('push')).code, 0);
  t.equal((await b.l('pull')).code, 0);
  const before = (await b.l.json('show', id)).value;
  t.equal(before.review_gap, null, 'the branch is the reviewed head: nothing to say');
  t.notMatch((await b.l('show', id)).stdout, /^review: /m);
  const reviewed = b.git('rev-parse', `lazy/${id}`);

  // A teammate commits on the task branch after the review and pushes it; B's pull fast-forwards to it.
  const wt = (await a.l.json('show', id)).value.worktree as string;
  gitSync(wt, a.sb.env, ['commit', '-q', '--allow-empty', '-m', 'pushed after the review']);
  t.equal((await a.l('push')).code, 0);
  t.equal((await b.l('pull')).code, 0);
  const head = b.git('rev-parse', `lazy/${id}`);
  t.not(head, reviewed, 'the pull moved lazy/<id> past the reviewed head');

  const shown = await b.l('show', id);
  t.match(
    shown.stdout,
    new RegExp(
      `^review: {4}lazy/${id} has 1 commit\\(s\\) after the last review \\(pulled from origin\\); ` +
        'accept refuses them until a review covers them',
      'm',
    ),
    'show says it, and where they came from',
  );
  const gap = (await b.l.json('show', id)).value.review_gap;
  t.match(gap, {
    kind: 'unreviewed',
    branch: `lazy/${id}`,
    reviewed_head: reviewed,
    branch_head: head,
    count: 1,
    commits: [head],
    pulled_from: 'origin',
  });
  const accept = await b.l.json('accept', id, '--yes');
  t.equal(accept.run.code, 4, 'accept refuses them');
  t.equal(accept.value.error.code, 'unreviewed_head');
  t.match(
    accept.value.error.details,
    { reviewed_head: gap.reviewed_head, branch_head: gap.branch_head, unreviewed_count: gap.count },
    'from the very fact show reports',
  );
  t.same(accept.value.error.details.unreviewed_commits, gap.commits);
  t.equal((await b.l.json('show', id)).value.status, 'blocked', 'nothing moved');

  // The other way round: B commits and pushes; A's pull fast-forwards the branch in A's clean task worktree.
  const bwt = `${tm.root}/b-extra`;
  gitSync(b.sb.dir, b.sb.env, ['worktree', 'add', '-q', bwt, `lazy/${id}`]);
  gitSync(bwt, b.sb.env, ['commit', '-q', '--allow-empty', '-m', 'another one']);
  gitSync(b.sb.dir, b.sb.env, ['worktree', 'remove', bwt]);
  t.equal((await b.l('push')).code, 0);
  t.equal((await a.l('pull')).code, 0);
  t.equal(gitSync(wt, a.sb.env, ['rev-parse', 'HEAD']).trim(), b.git('rev-parse', `lazy/${id}`), 'A’s worktree too');
  t.match(
    (await a.l('show', id)).stdout,
    /^review: {4}lazy\/\S+ has 2 commit\(s\) after the last review \(pulled from origin\)/m,
  );
});
