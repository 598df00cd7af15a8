import t from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, cli, gitSync } from '../helpers/env.js';
import { team, withFakeAgent } from '../helpers/team.js';

// Issue 11 end to end, on three clones of one bare remote (the forge): A runs a task and
// B reviews and accepts it; A runs another, C submits it to the forge, the forge's merge
// button (plain git in a scratch clone) merges it, and A detects the merge on its next pull.

const FAKE_GH = join(ROOT, 'test', 'fixtures', 'fake-gh.mjs');

const refs = (dir: string, pattern: string) =>
  gitSync(dir, process.env, ['for-each-ref', '--format=%(refname)', pattern]).trim().split('\n').filter(Boolean);

t.test('A runs, B reviews and accepts, C submits, a forge merge is detected on A', async (t) => {
  const tm = team(3);
  t.teardown(tm.cleanup);
  const [A, B] = tm.clones;
  // Each clone is its own machine: a host name of its own.
  const hosts = tm.clones.map((x, i) => ({ ...x, env: { ...x.env, LAZY_HOST: `host-${'abc'[i]}` } }));
  const [a, b, c] = hosts.map((x) => cli(x));
  for (const x of hosts) await withFakeAgent(x);

  // A runs the first task and pushes its state and its work.
  const one = await a!.create('add a greeting', '--accept', 'a greeting file exists');
  t.equal((await a!('start', one)).code, 0);
  t.equal((await a!.json('wait', one)).value.task.status, 'blocked');
  t.equal((await a!('push')).code, 0);
  t.same(refs(tm.remote, `refs/heads/lazy/${one}`), [`refs/heads/lazy/${one}`], 'the work branch reached the remote');

  // B did not run it: the review, the diff and the accept all work from the fetched branch.
  t.equal((await b!('pull')).code, 0);
  const shown = await b!.json('show', one);
  t.equal(shown.value.status, 'blocked');
  const text = (await b!('show', one)).stdout;
  t.match(text, /^Review /m, 'show leads with the review package');
  t.match(text, /work-\d+\.txt/, 'which lists the changed file');
  const diff = await b!('diff', one);
  t.equal(diff.code, 0, diff.stderr);
  t.match(diff.stdout, /^diff --git/m, 'diff shows the work');
  const accepted = await b!('accept', one, '--yes');
  t.equal(accepted.code, 0, accepted.stderr);
  t.equal((await b!.json('show', one)).value.status, 'complete');
  t.match(
    gitSync(B!.dir, B!.env, ['log', '-1', '--format=%B', 'main']),
    new RegExp(`Lazy-Task: ${one}`),
    'squash on B',
  );
  t.equal((await b!('push')).code, 0);
  t.same(refs(tm.remote, `refs/heads/lazy/${one}`), [], 'the accept deleted the branch on the remote too');

  // A sees it complete after its next pull.
  t.equal((await a!('pull')).code, 0);
  t.equal((await a!.json('show', one)).value.status, 'complete');

  // A runs a second task; C submits it to the forge.
  const two = await a!.create('add a farewell', '--accept', 'a farewell file exists');
  await a!('start', two);
  t.equal((await a!.json('wait', two)).value.task.status, 'blocked');
  await a!('push');
  await c!('pull');
  const log = join(tm.root, 'gh.log');
  const gh = `"${process.execPath}" "${FAKE_GH}" pr create --head {branch} --base {base} --body-file {body_file}`;
  await c!('config', 'set', 'forge.pr_command', gh, '--local');
  const submitted = await cli(hosts[2]!, { FAKE_GH_LOG: log }).json('submit', two);
  t.equal(submitted.run.code, 0, submitted.run.stderr);
  const onC = await c!.json('show', two);
  t.equal(onC.value.status, 'submitted');
  t.match(onC.value.submission?.url, /^https:\/\//, 'the PR URL is recorded');
  const call = JSON.parse(readFileSync(log, 'utf8').trim().split('\n').at(-1)!);
  t.equal(call.env.LAZY_TASK_ID, two, 'the PR command was told the task');
  t.match(call.body, new RegExp(two), 'and handed the body naming it');

  // The forge merges with a merge commit; A finds out from git alone.
  const scratch = join(tm.root, 'forge');
  gitSync(tm.root, A!.env, ['clone', '-q', tm.remote, scratch]);
  gitSync(scratch, A!.env, ['merge', '--no-ff', '-m', 'Merge pull request #1', `origin/lazy/${two}`]);
  gitSync(scratch, A!.env, ['push', '-q', 'origin', 'main', `:refs/heads/lazy/${two}`]);
  t.equal((await a!('pull')).code, 0);
  const done = await a!.json('show', two);
  t.equal(done.value.status, 'complete', 'the merge upstream completed the task');
  t.equal(done.value.changelog.at(-1).trigger, 'merge_done');
  t.same(refs(A!.dir, `refs/heads/lazy/${two}`), [], "A's branch was cleaned up as accept does");
});
