import { writeFileSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import { cli, gitSync } from '../helpers/env.js';
import { team, withFakeAgent } from '../helpers/team.js';
import { plantTree, readTaskFiles, withId } from '../helpers/plant.js';
import { concurrent } from '../helpers/concurrent.js';

const tips = (dir: string, env: NodeJS.ProcessEnv) =>
  gitSync(dir, env, ['for-each-ref', '--format=%(refname) %(objectname)', 'refs/lazy/tasks/']).trim();

const test = concurrent(4);

test('a fresh clone finds every task after one pull; push is fast-forward only', async (t) => {
  const tm = team(2);
  t.teardown(tm.cleanup);
  const [a, b] = tm.clones.map((c) => cli(c));
  const ids = [await a!.create('one'), await a!.create('two')];
  await a!('comment', ids[0]!, '-m', 'hello');
  const pushed = await a!.json('push');
  t.same(pushed.value.new.sort(), [...ids].sort());
  t.equal(
    gitSync(tm.remote, process.env, ['for-each-ref', '--format=%(refname)', 'refs/lazy/tasks/']).trim().split('\n')
      .length,
    2,
    'the remote has the task refs',
  );
  const pulled = await b!.json('pull');
  t.same(pulled.value.new.sort(), [...ids].sort());
  t.same((await b!.json('list')).value.map((x: any) => x.id).sort(), [...ids].sort());
  t.equal((await b!.json('show', ids[0]!)).value.turns[0].content, 'hello');
  t.equal(
    gitSync(tm.clones[1]!.dir, tm.clones[1]!.env, ['for-each-ref', '--format=%(refname)', 'refs/lazy/'])
      .trim()
      .split('\n')
      .filter((r) => !r.startsWith('refs/lazy/tasks/')).length,
    0,
    'nothing but tasks under refs/lazy/',
  );
  // B moves on without pulling A's later change: B's push is rejected, never forced.
  await a!('comment', ids[1]!, '-m', 'from A');
  await a!('push');
  await b!('comment', ids[1]!, '-m', 'from B');
  const rejected = await b!.json('push');
  t.same(
    rejected.value.rejected.map((r: any) => r.id),
    [ids[1]],
    'a non-fast-forward push is rejected',
  );
  t.equal(rejected.run.code, 5, 'and the push exits non-zero');
  t.match(rejected.value.rejected[0].reason, /fetch first.*lazy pull/, "with git's reason");
  const synced = await b!.json('sync');
  t.same(synced.value.pull.merged, [ids[1]]);
  t.equal(synced.value.push.rejected.length, 0);
  await a!('pull');
  t.same((await a!.json('show', ids[1]!)).value.turns.map((x: any) => x.content).sort(), ['from A', 'from B']);
});

test('concurrent conflicting transitions resolve identically everywhere and visibly', async (t) => {
  const tm = team(2);
  t.teardown(tm.cleanup);
  const [a, b] = tm.clones.map((c) => cli(c));
  const id = await a!.create('contested');
  await a!('push');
  await b!('pull');
  await a!('close', id, '-m', 'not needed');
  await b!('comment', id, '-m', 'still needed');
  await b!('close', id, '-m', 'closed on B as well');
  await b!('reopen', id);
  await a!('sync');
  await b!('sync');
  await a!('sync');
  t.equal(
    tips(tm.clones[0]!.dir, tm.clones[0]!.env),
    tips(tm.clones[1]!.dir, tm.clones[1]!.env),
    'both clones hold the same commit',
  );
  const va = (await a!.json('show', id)).value;
  const vb = (await b!.json('show', id)).value;
  t.equal(va.status, vb.status, 'the same status on both');
  t.same(va.changelog, vb.changelog, 'the same changelog on both');
  t.ok(va.concurrent_changes.length >= 1, 'the losing transition is recorded as set aside');
  t.match(
    (await a!('show', id)).stdout,
    /concurrent change: \d status change\(s\) made on another clone were set aside/,
  );
  const log = (await a!.json('log', id)).value;
  t.ok(
    log.some((l: any) => l.parents.length === 2 && l.op === 'merge'),
    'lazy log shows the merge',
  );
  t.ok(
    log.some((l: any) => l.author === 'Dev 1'),
    'and who changed what',
  );
});

test('two clones merging the same pair write the same merge commit', async (t) => {
  const tm = team(3);
  t.teardown(tm.cleanup);
  const [a, b, c] = tm.clones.map((x) => cli(x));
  const id = await a!.create('diverge');
  await a!('push');
  await b!('pull');
  await c!('pull');
  await a!('comment', id, '-m', 'A');
  await a!('push');
  await b!('comment', id, '-m', 'B');
  // B and C both merge A's tip with B's tip: C gets B's history by fetching from B's clone.
  gitSync(tm.clones[2]!.dir, tm.clones[2]!.env, [
    'fetch',
    '-q',
    tm.clones[1]!.dir,
    `+refs/lazy/tasks/${id}:refs/lazy/tasks/${id}`,
  ]);
  await b!('pull');
  await c!('pull');
  t.equal(
    tips(tm.clones[1]!.dir, tm.clones[1]!.env),
    tips(tm.clones[2]!.dir, tm.clones[2]!.env),
    'identical merge commits',
  );
});

test('a planted malformed remote task is rejected while the others merge', async (t) => {
  const tm = team(2);
  t.teardown(tm.cleanup);
  const [a, b] = tm.clones.map((c) => cli(c));
  const good = await a!.create('good');
  const template = await a!.create('template');
  await a!('push');
  // Plant bad tasks straight into the remote, as a hostile or broken clone would.
  const seed = tm.clones[0]!;
  const files = readTaskFiles(seed, template);
  const bad1 = 'bad00001';
  plantTree(seed, `refs/lazy/tasks/${bad1}`, {
    ...files,
    'task.yaml': withId(files['task.yaml']!, bad1).replace(/^goal: .*$/m, 'goal: [1, 2]'),
  });
  const bad2 = 'bad00002';
  plantTree(seed, `refs/lazy/tasks/${bad2}`, {
    ...files,
    'task.yaml': withId(files['task.yaml']!, bad2),
    'turns/run-me.sh': '#!/bin/sh\nrm -rf ~\n',
  });
  const bad3 = 'bad00003';
  const turn = Object.keys(files).find((p) => p.startsWith('changelog/'))!;
  plantTree(seed, `refs/lazy/tasks/${bad3}`, {
    ...files,
    'task.yaml': withId(files['task.yaml']!, bad3),
    [turn]: files[turn]! + `padding: "${'x'.repeat(1_200_000)}"\n`,
  });
  for (const bad of [bad1, bad2, bad3]) {
    gitSync(seed.dir, seed.env, ['push', '-q', 'origin', `refs/lazy/tasks/${bad}:refs/lazy/tasks/${bad}`]);
    gitSync(seed.dir, seed.env, ['update-ref', '-d', `refs/lazy/tasks/${bad}`]);
  }
  const p = await b!.json('pull');
  t.equal(p.run.code, 0, 'the pull itself succeeds');
  t.same(p.value.new.sort(), [good, template].sort(), 'the healthy tasks merge');
  t.same(p.value.rejected.map((r: any) => r.id).sort(), [bad1, bad2, bad3], 'the bad ones are reported');
  t.match(
    p.value.rejected.find((r: any) => r.id === bad3).reason,
    /larger than|bytes/,
    'an oversized document is refused',
  );
  t.match(p.value.rejected.find((r: any) => r.id === bad1).reason, /fails the task schema at \/goal/);
  t.match(p.value.rejected.find((r: any) => r.id === bad2).reason, /unexpected entry 'turns\/run-me\.sh'/);
  t.equal(
    gitSync(tm.clones[1]!.dir, tm.clones[1]!.env, [
      'for-each-ref',
      '--format=%(refname)',
      `refs/lazy/tasks/${bad1}`,
    ]).trim(),
    '',
    'and never touch local state',
  );
  t.equal((await b!('doctor')).code, 0, 'the local store stays healthy');
});

test('the same entry path with different contents is corruption: reported, not merged', async (t) => {
  const tm = team(2);
  t.teardown(tm.cleanup);
  const [a, b] = tm.clones.map((c) => cli(c));
  const id = await a!.create('forged');
  await a!('comment', id, '-m', 'original');
  await a!('push');
  await b!('pull');
  await b!('comment', id, '-m', 'B adds');
  // A's clone rewrites the existing turn file in a new commit and pushes it.
  const files = readTaskFiles(tm.clones[0]!, id);
  const turn = Object.keys(files).find((p) => p.startsWith('turns/'))!;
  const parent = gitSync(tm.clones[0]!.dir, tm.clones[0]!.env, ['rev-parse', `refs/lazy/tasks/${id}`]).trim();
  plantTree(
    tm.clones[0]!,
    `refs/lazy/tasks/${id}`,
    { ...files, [turn]: files[turn]!.replace('original', 'rewritten history') },
    parent,
  );
  gitSync(tm.clones[0]!.dir, tm.clones[0]!.env, ['push', '-q', 'origin', `refs/lazy/tasks/${id}`]);
  const before = gitSync(tm.clones[1]!.dir, tm.clones[1]!.env, ['rev-parse', `refs/lazy/tasks/${id}`]).trim();
  const p = await b!.json('pull');
  t.same(
    p.value.rejected.map((r: any) => r.id),
    [id],
  );
  t.match(p.value.rejected[0].reason, /different contents on the two sides/);
  t.equal(
    gitSync(tm.clones[1]!.dir, tm.clones[1]!.env, ['rev-parse', `refs/lazy/tasks/${id}`]).trim(),
    before,
    'the local task is untouched',
  );
});

test('a rejected push is retried by sync', async (t) => {
  const tm = team(3);
  t.teardown(tm.cleanup);
  const [a, b, c] = tm.clones.map((x) => cli(x));
  const id = await a!.create('race');
  await a!('push');
  await b!('pull');
  await c!('pull');
  await c!('comment', id, '-m', 'from C, pushed while B syncs');
  await b!('comment', id, '-m', 'from B');
  // B's pre-push hook lets C push first, once: B's first push is rejected.
  const hook = join(tm.clones[1]!.dir, '.git', 'hooks', 'pre-push');
  writeFileSync(
    hook,
    `#!/bin/sh\nif [ ! -f "${tm.root}/raced" ]; then touch "${tm.root}/raced"; cd "${tm.clones[2]!.dir}" && env -u GIT_DIR -u GIT_WORK_TREE -u GIT_INDEX_FILE git push -q origin refs/lazy/tasks/${id}; fi\nexit 0\n`,
  );
  chmodSync(hook, 0o755);
  const s = await b!.json('sync');
  t.equal(s.run.code, 0, s.run.stderr);
  t.equal(s.value.rounds, 2, 'the rejected round was retried');
  t.same(s.value.push.rejected, []);
  await c!('pull');
  t.same((await c!.json('show', id)).value.turns.map((x: any) => x.content).sort(), [
    'from B',
    'from C, pushed while B syncs',
  ]);
});

test('plain git fetch and push carry tasks after lazy init --remote; doctor explains', async (t) => {
  const tm = team(2);
  t.teardown(tm.cleanup);
  const [a, b] = tm.clones.map((c) => cli(c));
  const before = await b!.json('doctor');
  t.ok(
    before.value.findings.some((f: any) => f.code === 'missing_refspecs'),
    'doctor explains what is missing',
  );
  const init = await a!.json('init', '--remote', 'origin');
  t.ok(init.value.actions.some((x: string) => x.includes('+refs/lazy/*:refs/remotes/origin/lazy/*')));
  await b!('init', '--remote');
  const id = await a!.create('via plain git');
  gitSync(tm.clones[0]!.dir, tm.clones[0]!.env, ['push', '-q']);
  t.match(
    gitSync(tm.remote, process.env, ['for-each-ref', 'refs/lazy/tasks/']),
    new RegExp(id),
    'plain git push carried the task',
  );
  gitSync(tm.clones[1]!.dir, tm.clones[1]!.env, ['fetch', '-q']);
  t.match(
    gitSync(tm.clones[1]!.dir, tm.clones[1]!.env, ['for-each-ref', 'refs/remotes/origin/lazy/']),
    new RegExp(id),
    'plain git fetch brought the tracking copy',
  );
  const p = await b!.json('pull');
  t.same(p.value.new, [id]);
  t.equal((await b!.json('doctor')).value.findings.filter((f: any) => f.code === 'missing_refspecs').length, 0);
  await a!('init', '--remote', 'origin');
  t.same(
    gitSync(tm.clones[0]!.dir, tm.clones[0]!.env, ['config', '--get-all', 'remote.origin.push']).trim().split('\n'),
    ['HEAD', 'refs/lazy/*:refs/lazy/*', 'refs/heads/lazy/*:refs/heads/lazy/*'],
    'rerunning adds nothing; task branches are pushed by plain git push too',
  );
});

test('a task working on another machine shows as working there and is never judged here', async (t) => {
  const tm = team(2);
  t.teardown(tm.cleanup);
  await withFakeAgent(tm.clones[0]!);
  const a = cli(tm.clones[0]!, { FAKE_SCENARIO: 'hang', LAZY_HOST: 'machine-a' });
  const b = cli(tm.clones[1]!, { LAZY_HOST: 'machine-b' });
  const id = await a.create('long job', '--accept', 'done');
  await a('start', id);
  await a('push');
  const pulled = await b.json('pull');
  t.same(pulled.value.new, [id]);
  await b('list');
  const v = (await b.json('show', id)).value;
  t.equal(v.status, 'working', 'still working after B reconciles');
  t.equal(v.changelog.at(-1).host, 'machine-a', 'with its host recorded');
  const stop = await b.json('stop', id);
  t.equal(stop.run.code, 4, 'B does not stop a run it does not own');
  t.match(stop.value.error.message, /running on machine-a/);
  t.equal((await b.json('wait', id, '--timeout', '1')).run.code, 5, 'B can only wait for it');
  t.equal((await a.json('stop', id)).value.task.status, 'interrupted');
  // Its branch is on machine A: B neither calls it lost nor starts over from the base.
  await a('push');
  await b('pull');
  // The branch travelled (test/sync/branches.test.ts); without it here, B must not start over from the base.
  t.equal(
    gitSync(tm.clones[1]!.dir, tm.clones[1]!.env, ['rev-parse', `lazy/${id}`]),
    gitSync(tm.clones[0]!.dir, tm.clones[0]!.env, ['rev-parse', `lazy/${id}`]),
    'the pull brought the branch',
  );
  gitSync(tm.clones[1]!.dir, tm.clones[1]!.env, ['branch', '-D', '-q', `lazy/${id}`]);
  await withFakeAgent(tm.clones[1]!);
  const resumed = await b.json('resume', id);
  t.equal(resumed.run.code, 4, 'B does not restart the work from the base');
  t.match(
    resumed.value.error.message,
    /worked on machine-a: its branch lazy\/\w+ is not in this clone yet; lazy pull to fetch it/,
  );
  const doctor = (await b.json('doctor')).value;
  t.notOk(
    doctor.findings.some((f: { code: string }) => f.code === 'branch_missing'),
    'doctor on B reports no lost branch',
  );
});
