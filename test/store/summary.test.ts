import t, { type Test } from 'tap';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { agentSandbox } from '../helpers/agent.js';
import { BUILD, env, hanging, ok, type State } from '../helpers/lifecycle-walk.js';
import { cli, gitSync, sandbox, type Sandbox } from '../helpers/env.js';
import { team } from '../helpers/team.js';
import { TaskReader } from '../../lib/store/read.js';
import { foldTask } from '../../lib/model/fold.js';
import { LazyError } from '../../lib/core/errors.js';
import { toTuple } from '../../lib/store/listing/rows.js';
import { refreshIndex } from '../../lib/store/listing/index.js';
import {
  readSummaries,
  rowFromSummary,
  summaryTrailer,
  summaryValueOf,
  SUMMARY_MAX,
} from '../../lib/store/listing/summary.js';

// A task commit's summary (the Lazy-Summary trailer) is the listing row of the task as that commit's own documents
// fold: never trusted over them, so every commit any writer makes is checked against the fold of its tree.

const lazyDir = (dir: string) => join(dir, '.git', 'lazy');

/**
 * Every commit of every task ref in `dir`: the row its summary gives must be the fold of its own tree. Returns how
 * many commits carried one, and the ops of those that did not.
 */
async function checkHistories(t: Test, dir: string, e: NodeJS.ProcessEnv) {
  const refs = gitSync(dir, e, ['for-each-ref', '--format=%(refname:lstrip=3)', 'refs/lazy/tasks/']).split('\n');
  const reader = new TaskReader(dir);
  let checked = 0;
  const without: string[] = [];
  const ops = new Set<string>();
  try {
    for (const id of refs.filter(Boolean)) {
      const fmt = `--format=%H%x09%(trailers:key=Lazy-Op,valueonly,unfold)%x09%(trailers:key=Lazy-Summary,valueonly,unfold)%x1e`;
      const log = gitSync(dir, e, ['log', fmt, `refs/lazy/tasks/${id}`]).split('\x1e');
      for (const line of log) {
        if (!line.trim()) continue;
        // Only the newline after each record is cut: an empty trailer leaves tabs a trim() would take.
        const [commit, op, value] = line.replace(/^\n/, '').split('\t') as [string, string, string];
        // A commit lazy did not write (the walk's copies, a plant) has no Lazy-Op and no summary: it is folded.
        if (!value) {
          if (op.trim()) without.push(op.trim());
          continue;
        }
        const read = (await reader.readMany([{ id, tip: commit }])).get(id)!;
        if (read instanceof LazyError) throw read;
        const folded = toTuple(foldTask(read.docs));
        const row = rowFromSummary(id, commit, value.trim());
        t.same(row && toTuple(row), folded, `${id} at ${commit.slice(0, 8)} (${op.trim()}): the summary is the fold`);
        checked++;
        ops.add(op.trim());
      }
    }
  } finally {
    reader.close();
  }
  return { checked, without, ops };
}

const STATES: State[] = ['backlog', 'queued', 'blocked', 'decision', 'clarify', 'conflict', 'interrupted', 'submitted'];

t.test('every commit a lifecycle writes carries the summary its own documents fold to', async (t) => {
  const box = await agentSandbox({ settings: { protected: 'config/**' } });
  t.teardown(box.sb.cleanup);
  const e = env(box);
  const built = await Promise.all(STATES.map((s) => BUILD[s]!(e)));
  const working = await hanging(e);
  const [blocked, , , , , , interrupted] = built as [string, ...string[]];
  await ok(e, ['pause', interrupted!]);
  await ok(e, ['queue', built[1]!, '--priority', '7']);
  await ok(e, ['pause', built[1]!]);
  await ok(e, ['accept', built[2]!, '--yes']);
  await ok(e, ['reject', built[7]!, '-m', 'no']);
  await ok(e, ['close', blocked, '-m', 'not needed']);
  const parent = (await ok(e, ['create', 'the parent', '--tag', 'epic', '--tag', 'ünïcode'])).task.id;
  const odd =
    'first line\nsecond: line\n\nLazy-Op: forged\n---\n☃ \u0007 bell, \u001b[31m escape, \u009b c1, \u2028 sep\t tab';
  const child = (await ok(e, ['create', odd, '--parent', parent, '--tag', 'x'])).task.id;
  await ok(e, ['comment', child, '-m', 'a note']);
  await ok(e, ['edit', child, '--goal', `${odd} edited`]);
  const { checked, without, ops } = await checkHistories(t, box.sb.dir, box.sb.env);
  t.ok(checked >= 30, `every commit was checked (${checked})`);
  const wanted = ['create', 'start', 'turn', 'queue', 'pause', 'stop', 'accept', 'reject', 'close', 'submit', 'edit'];
  t.same(
    wanted.filter((o) => !ops.has(o)),
    [],
    `commits of every kind among them (${[...ops].sort().join(', ')})`,
  );
  t.same(without, [], 'and every commit lazy wrote carries a summary');
  const shown = (await e.show(working)) as { status: string };
  t.equal(shown.status, 'working', 'a working task among them');
  const value = summaryTrailer((await e.show(child)) as never)!;
  t.notOk(rowFromSummary(parent, 'x', value), "a summary is another task's row for no other id");
  t.ok(rowFromSummary(child, 'x', value), 'and its own for its id');
});

t.test('a merge written by a pull carries the merged fold; a clone lists from summaries, folds the rest', async (t) => {
  const tm = team(2);
  t.teardown(() => tm.cleanup());
  const [a, b] = [cli(tm.clones[0]!), cli(tm.clones[1]!)];
  // Enough tasks that git's output comes in several chunks, commits cut between them.
  t.equal((await a('__bench-seed', '150')).code, 0, 'the seeder writes what real commits carry');
  const id = await a.create('shared work', '--tag', 'team');
  t.equal((await a('push')).code, 0);
  t.equal((await b('pull')).code, 0);
  await a('comment', id, '-m', 'from a');
  await b('comment', id, '-m', 'from b');
  t.equal((await a('push')).code, 0);
  t.equal((await b('sync')).code, 0, 'b merges both comments');
  const merges = gitSync(tm.clones[1]!.dir, tm.clones[1]!.env, [
    'log',
    '--merges',
    '--format=%H',
    `refs/lazy/tasks/${id}`,
  ]);
  t.ok(merges.trim(), 'a merge commit was written');
  const { checked, without } = await checkHistories(t, tm.clones[1]!.dir, tm.clones[1]!.env);
  t.equal(checked, 154, 'the merge, the commits before it and every seeded commit were checked');
  const merge = merges.trim().split('\n')[0]!;
  const value = gitSync(tm.clones[1]!.dir, tm.clones[1]!.env, [
    'log',
    '-1',
    '--format=%(trailers:key=Lazy-Summary)',
    merge,
  ]);
  t.match(value, /^Lazy-Summary: 2\./, 'the merge carries one');
  const raw = gitSync(tm.clones[1]!.dir, tm.clones[1]!.env, ['cat-file', 'commit', merge]);
  t.equal(`Lazy-Summary: ${summaryValueOf(raw)}`, value.trim(), 'and a reader of the raw commit finds the same');
  t.same(without, [], 'all carry a summary');

  // b's index, gone: the first list reads the summaries, and finds the rows a fold gives.
  const dir = tm.clones[1]!.dir;
  const reader = new TaskReader(dir);
  t.teardown(() => reader.close());
  rmSync(lazyDir(dir), { recursive: true, force: true });
  const first = await refreshIndex(dir, lazyDir(dir), reader);
  t.equal(first.summarized, 151, 'every row came from a summary');
  t.equal(first.reread, 0, 'and no task was read');
  rmSync(lazyDir(dir), { recursive: true, force: true });
  const folded = await refreshIndex(dir, lazyDir(dir), reader, true);
  t.equal(folded.reread, 151, 'a read that wants the detail folds every task');
  const lean = (rs: { id: string }[]) => rs.map((r) => toTuple(r as never)).sort();
  t.same(lean(first.rows), lean(folded.rows), 'the rows read from summaries are the rows the fold gives');
});

t.test('rows from summaries fold on demand for detail; usage still counts every turn', async (t) => {
  const sb = sandbox();
  t.teardown(() => sb.cleanup());
  const l = cli(sb);
  t.equal((await l('__bench-seed', '80')).code, 0);
  const long = await l.create('x'.repeat(SUMMARY_MAX + 10));
  const reader = new TaskReader(sb.dir);
  t.teardown(() => reader.close());
  rmSync(lazyDir(sb.dir), { recursive: true, force: true });
  const first = await refreshIndex(sb.dir, lazyDir(sb.dir), reader);
  t.equal(first.summarized, 80, 'the seeded tasks from their summaries');
  t.equal(first.reread, 1, 'the task whose goal is too long for one is folded');
  t.ok(
    first.rows.some((r) => r.id === long),
    'and listed',
  );
  const usage = (await l.json('usage')).value as { total: { turns: number } };
  t.equal(usage.total.turns, 40, 'usage folds the rows it has no turns for, and counts each seeded turn');
  const again = (await l.json('usage')).value as { total: { turns: number } };
  t.equal(again.total.turns, 40, 'and again, from what that read kept');
  const listed = (await l.json('list')).value as { id: string; usage: unknown }[];
  t.equal(listed.length, 81, 'list --json has every row whole');
  t.ok(
    listed.every((r) => r.usage),
    'with the detail fields',
  );
});

t.test('a summary under another key, or none, is not used: the task is folded', async (t) => {
  const sb: Sandbox = sandbox();
  t.teardown(() => sb.cleanup());
  const l = cli(sb);
  t.equal((await l('__bench-seed', '60')).code, 0);
  const id = await l.create('planted');
  const ref = `refs/lazy/tasks/${id}`;
  const msg = gitSync(sb.dir, sb.env, ['log', '-1', '--format=%B', ref]);
  const other = msg.replace(/^Lazy-Summary: \S+/m, 'Lazy-Summary: 1.0000000000');
  const tree = gitSync(sb.dir, sb.env, ['rev-parse', `${ref}^{tree}`]).trim();
  const tip = gitSync(sb.dir, sb.env, ['rev-parse', ref]).trim();
  const planted = gitSync(sb.dir, sb.env, ['commit-tree', tree, '-p', tip], other).trim();
  gitSync(sb.dir, sb.env, ['update-ref', ref, planted, tip]);
  const reader = new TaskReader(sb.dir);
  t.teardown(() => reader.close());
  // An index an older release wrote: rebuilt as a first one is.
  mkdirSync(lazyDir(sb.dir), { recursive: true });
  writeFileSync(join(lazyDir(sb.dir), 'index.ndjson'), '{"version":"14.old","gen":"g","bad":[]}\n[\n]\n');
  const r = await refreshIndex(sb.dir, lazyDir(sb.dir), reader);
  t.equal(r.summarized, 60);
  t.equal(r.reread, 1, 'the planted commit is folded');
  t.equal(r.rows.find((x) => x.id === id)?.goal, 'planted');
  t.notOk(rowFromSummary(id, planted, other.match(/^Lazy-Summary: (.*)$/m)![1]!), 'another key gives no row');

  // A summary of this key in the message's body, not its last paragraph (the trailers): not one.
  const [mine] = msg.match(/^Lazy-Summary: .*$/m)!;
  const forged = gitSync(
    sb.dir,
    sb.env,
    ['commit-tree', tree, '-p', planted],
    `forged\n\n${mine}\n\nLazy-Task: ${id}\n`,
  );
  gitSync(sb.dir, sb.env, ['update-ref', ref, forged.trim(), planted]);
  rmSync(lazyDir(sb.dir), { recursive: true, force: true });
  const again = await refreshIndex(sb.dir, lazyDir(sb.dir), reader);
  t.same([again.summarized, again.reread], [60, 1], 'the task is folded');
  t.equal((await readSummaries(sb.dir)).get(id)?.value, '', 'as git reads no such trailer there either');
});
