import t from 'tap';
import { cli, gitSync, type Sandbox } from '../helpers/env.js';
import { team } from '../helpers/team.js';
import { TaskReader } from '../../lib/store/read.js';
import { foldTask } from '../../lib/model/fold.js';
import { rowFromSummary } from '../../lib/store/listing/summary.js';
import { toTuple } from '../../lib/store/listing/rows.js';

// A task whose tip carries no summary (a release before it wrote the commit) is folded by a first list, and gains
// one when next written, or by doctor --fix: a status-neutral commit every clone writes alike.

const summaryOf = (sb: Sandbox, rev: string) =>
  gitSync(sb.dir, sb.env, ['log', '-1', '--format=%(trailers:key=Lazy-Summary,valueonly,unfold)', rev]).trim();

/** Rewrites the tip as a release before summaries wrote it: the same tree, the message without the new trailers. */
function plantOld(
  sb: Sandbox,
  id: string,
  edit = (m: string) => m.replace(/^Lazy-(Goal|Tags|Updated|Summary):.*\n/gm, ''),
) {
  const ref = `refs/lazy/tasks/${id}`;
  const tip = gitSync(sb.dir, sb.env, ['rev-parse', ref]).trim();
  const msg = edit(gitSync(sb.dir, sb.env, ['log', '-1', '--format=%B', ref]));
  const tree = gitSync(sb.dir, sb.env, ['rev-parse', `${ref}^{tree}`]).trim();
  const parents = gitSync(sb.dir, sb.env, ['log', '-1', '--format=%P', ref]).trim().split(' ').filter(Boolean);
  const old = gitSync(sb.dir, sb.env, ['commit-tree', tree, ...parents.flatMap((p) => ['-p', p])], msg).trim();
  gitSync(sb.dir, sb.env, ['update-ref', ref, old, tip]);
  return old;
}

async function foldedRow(sb: Sandbox, id: string) {
  const reader = new TaskReader(sb.dir);
  try {
    return toTuple(foldTask((await reader.readOne(id)).docs));
  } finally {
    reader.close();
  }
}

t.test(
  'doctor finds tips without a summary, or with a wrong one; --fix writes the same commit in every clone',
  async (t) => {
    const tm = team(2);
    t.teardown(() => tm.cleanup());
    const [sa, sb] = [tm.clones[0]!, tm.clones[1]!];
    const [a, b] = [cli(sa), cli(sb)];
    const old = await a.create('written by an older release', '--tag', 'legacy');
    const wrong = await a.create('a wrong summary');
    const fine = await a.create('written by this one');
    await a('comment', old, '-m', 'still old');
    const planted = plantOld(sa, old);
    t.equal(summaryOf(sa, planted), '', 'the planted tip carries no summary');
    plantOld(sa, wrong, (m) => m.replace(/"backlog"/, '"complete"'));
    t.equal((await a('push')).code, 0);
    t.equal((await b('pull')).code, 0);

    const report = (await a.json('doctor')).value as { findings: { code: string; level: string; details: any }[] };
    const missing = report.findings.find((f) => f.code === 'summary_missing');
    t.same(missing?.details.tasks, [old], 'the tip without one is named, as info');
    t.equal(missing?.level, 'info');
    const bad = report.findings.find((f) => f.code === 'summary_wrong');
    t.same(bad?.details.tasks, [wrong], 'a summary its documents do not fold to is an error');
    t.equal(bad?.level, 'error');

    const fixed = (await a.json('doctor', '--fix')).value as { findings: { code: string }[]; fixed: string[] };
    t.match(fixed.fixed.join('\n'), /wrote the summary of 2 task/, 'both are fixed');
    t.notOk(
      fixed.findings.some((f) => f.code.startsWith('summary_')),
      'and no longer found',
    );
    for (const id of [old, wrong]) {
      const tip = gitSync(sa.dir, sa.env, ['rev-parse', `refs/lazy/tasks/${id}`]).trim();
      const row = rowFromSummary(id, tip, summaryOf(sa, tip));
      t.same(row && toTuple(row), await foldedRow(sa, id), `${id}: the summary is the fold`);
      t.equal(
        gitSync(sa.dir, sa.env, ['rev-parse', `${tip}^{tree}`]),
        gitSync(sa.dir, sa.env, ['rev-parse', `${tip}~1^{tree}`]),
        'the tree is kept',
      );
    }
    const log = (await a.json('log', old)).value as { op: string; to: string | null }[];
    t.same([log[0]!.op, log[0]!.to], ['summary', null], 'the log shows a summary commit that moved no status');
    t.equal(
      gitSync(sa.dir, sa.env, ['rev-parse', `refs/lazy/tasks/${fine}`]),
      gitSync(sb.dir, sb.env, ['rev-parse', `refs/lazy/tasks/${fine}`]),
      'a task with its summary is not touched',
    );

    t.equal((await b('doctor', '--fix')).code, 0);
    for (const id of [old, wrong])
      t.equal(
        gitSync(sb.dir, sb.env, ['rev-parse', `refs/lazy/tasks/${id}`]),
        gitSync(sa.dir, sa.env, ['rev-parse', `refs/lazy/tasks/${id}`]),
        `${id}: the other clone wrote the very same commit`,
      );
    t.equal((await a('push')).code, 0);
    t.equal((await b('pull')).code, 0);
    const merges = gitSync(sb.dir, sb.env, ['log', '--merges', '--format=%H', `refs/lazy/tasks/${old}`]).trim();
    t.equal(merges, '', 'so a pull merges nothing');
  },
);
