import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli, gitSync, type Sandbox } from '../helpers/env.js';
import { team, withFakeAgent, type Team } from '../helpers/team.js';
import { concurrent } from '../helpers/concurrent.js';

// Review, land and continue on a clone that did not run the task: clone A runs it and
// pushes; clone B pulls (the task and its branch) and works from
// the fetched branch. Each clone has a host name of its own (LAZY_HOST).

const test = concurrent(3);

interface Clone {
  sb: Sandbox;
  l: ReturnType<typeof cli>;
  git: (...args: string[]) => string;
  log: string;
}

async function clones(t: { teardown(f: () => unknown): void }, adapter = 'claude'): Promise<{ tm: Team; c: Clone[] }> {
  const n = 2;
  const tm = team(n, 'lazy-remote');
  t.teardown(tm.cleanup);
  const c: Clone[] = [];
  for (const [i, sb] of tm.clones.entries()) {
    const log = join(sb.home, 'fake-log.jsonl');
    // Each clone's fake agent numbers its work files from its own counter: B's must not redo A's work-1.txt.
    mkdirSync(sb.env.FAKE_STATE!, { recursive: true });
    writeFileSync(join(sb.env.FAKE_STATE!, 'count'), String(i * 10));
    const l = cli(sb, { LAZY_HOST: `host-${'abc'[i]}`, FAKE_LOG: log });
    await withFakeAgent({ ...sb, env: { ...sb.env, LAZY_HOST: `host-${'abc'[i]}` } });
    const r = await l('config', 'set', 'agents.fake.adapter', adapter, '--local');
    if (r.code !== 0) throw new Error(r.stderr);
    c.push({ sb, l, git: (...args) => gitSync(sb.dir, sb.env, args), log });
  }
  return { tm, c };
}

const invocations = (c: Clone) =>
  existsSync(c.log)
    ? readFileSync(c.log, 'utf8')
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((x) => JSON.parse(x) as { argv: string[]; prompt: string; cwd: string })
    : [];

/**
 * A runs a task to review and pushes the task and its branch; with `stateOnly`, the task refs
 * alone, as plain git push or an older lazy would.
 */
async function runOnA(a: Clone, goal: string, stateOnly = false): Promise<string> {
  const id = await a.l.create(goal, '--accept', 'the file exists');
  const s = await a.l('start', id);
  if (s.code !== 0) throw new Error(s.stderr);
  const w = await a.l.json('wait', id, '--timeout', '30');
  if (w.value.task.status !== 'blocked') throw new Error(`not reviewed: ${w.run.stdout}`);
  if (stateOnly) a.git('push', '-q', 'origin', 'refs/lazy/*:refs/lazy/*');
  else await a.l('push');
  return id;
}

/** B pulls the task, and with it its branch. */
async function pullOnB(b: Clone, id: string): Promise<void> {
  await b.l('pull');
  if (!b.git('branch', '--list', `lazy/${id}`).trim()) throw new Error(`the pull did not bring lazy/${id}`);
}

test('B reviews and accepts what A ran: before the branch is fetched it says to pull; then show, diff, accept', async (t) => {
  const { c } = await clones(t);
  const [a, b] = c as [Clone, Clone];
  const id = await runOnA(a, 'write the work file', true);
  await b.l('pull');
  const missing = await b.l.json('diff', id);
  t.equal(missing.run.code, 4);
  t.match(missing.value.error.message, /worked on host-a.*lazy pull to fetch it/, 'diff names the host and the fix');
  t.notMatch(missing.value.error.message, /start it first/);
  const early = await b.l.json('accept', id, '--yes');
  t.equal(early.run.code, 4);
  t.match(early.value.error.message, /worked on host-a.*lazy pull to fetch it/, 'so does accept');
  const un = await b.l.json('unblock', id, '-m', 'more');
  t.equal(un.run.code, 4);
  t.match(un.value.error.message, /worked on host-a.*lazy pull to fetch it/, 'and unblock');
  t.notMatch(un.value.error.message, /do not travel/);
  t.equal((await b.l.json('show', id)).value.status, 'blocked', 'nothing changed');
  // A branch fetched before the reviewed work reached it is behind the review: pull, not "moved".
  b.git('branch', `lazy/${id}`, 'main');
  const behind = await b.l.json('accept', id, '--yes');
  t.equal(behind.run.code, 4);
  t.match(
    behind.value.error.message,
    /here is at \w+, behind the head its review recorded \(\w+, made on host-a\); lazy pull/,
  );
  t.notMatch(behind.value.error.message, /moved since it was reviewed/);
  b.git('branch', '-D', `lazy/${id}`);
  await a.l('push');
  await pullOnB(b, id);
  t.match(
    (await b.l('show', id)).stdout,
    /Review \(turn #\d+[\s\S]*work-1\.txt/,
    'the review package, diff stat included',
  );
  const diff = await b.l('diff', id);
  t.equal(diff.code, 0, diff.stderr);
  t.match(diff.stdout, /\+\+\+ b\/work-1\.txt\n@@ -0,0 \+1 @@\n\+turn 1/, 'the diff of the fetched branch');
  const acc = await b.l.json('accept', id, '--yes');
  t.equal(acc.run.code, 0, acc.run.stderr);
  t.equal(acc.value.task.status, 'complete');
  t.equal(b.git('show', 'main:work-1.txt'), 'turn 1\n', "the squash landed on B's main");
  t.match(b.git('log', '-1', '--format=%B', 'main'), new RegExp(`Lazy-Task: ${id}`));
  t.equal(b.git('branch', '--list', `lazy/${id}`).trim(), '', "B's local branch is deleted, as accept does");
  // A sees it complete after B pushes and A pulls.
  await b.l('push');
  await a.l('pull');
  t.equal((await a.l.json('show', id)).value.status, 'complete');
});

test('unblock on B creates the worktree from the fetched branch and starts a fresh agent session with context', async (t) => {
  const { c } = await clones(t);
  const [a, b] = c as [Clone, Clone];
  const id = await runOnA(a, 'build the widget');
  const aHead = a.git('rev-parse', `lazy/${id}`).trim();
  t.ok(invocations(a)[0]!.argv.length, 'A ran the agent');
  await pullOnB(b, id);
  const un = await b.l.json('unblock', id, '-m', 'also handle the empty case');
  t.equal(un.run.code, 0, un.run.stderr);
  const w = await b.l.json('wait', id, '--timeout', '30');
  t.equal(w.value.task.status, 'blocked');
  const [inv] = invocations(b);
  t.ok(inv, 'B ran the agent');
  t.notOk(inv!.argv.includes('--resume'), "no resume of A's agent session, which lives on host-a");
  t.match(inv!.prompt, /Task: build the widget/, 'the fresh session is told the task');
  t.match(inv!.prompt, /another machine \(host-a\)/, 'and that earlier turns ran elsewhere');
  t.match(inv!.prompt, /did turn 1/, "and what the last turn's review said");
  t.match(inv!.prompt, /also handle the empty case/, 'and the feedback');
  const wt = join(b.sb.dir, '.lazy', 'worktrees', id);
  t.ok(existsSync(join(wt, 'work-1.txt')), "the worktree holds A's work");
  t.equal(gitSync(wt, b.sb.env, ['rev-parse', 'HEAD~1']).trim(), aHead, "B's turn builds on A's head");
  // The next unblock on B resumes B's own session.
  await b.l('unblock', id, '-m', 'one more');
  await b.l('wait', id, '--timeout', '30');
  t.equal(invocations(b).length, 2, 'one launch per turn');
  const second = invocations(b)[1]!;
  t.match(second.prompt, /one more/);
  t.ok(second.argv.includes('--resume'), 'a session that ran here is resumed');
  t.notMatch(second.prompt, /another machine/, 'and needs no context');
});

test('an agent without session ids (a command agent) is told the context too when its last turn ran elsewhere', async (t) => {
  const { c } = await clones(t, 'command');
  const [a, b] = c as [Clone, Clone];
  const id = await runOnA(a, 'build the gadget');
  await pullOnB(b, id);
  t.equal((await b.l('unblock', id, '-m', 'polish it')).code, 0);
  await b.l('wait', id, '--timeout', '30');
  const [inv] = invocations(b);
  t.match(inv!.prompt, /another machine \(host-a\)[\s\S]*Task: build the gadget[\s\S]*polish it/);
  // B's own next turn needs no such context: the last agent turn ran here.
  const again = await b.l('unblock', id, '-m', 'and again');
  t.equal(again.code, 0, again.stderr);
  await b.l('wait', id, '--timeout', '30');
  t.same(
    invocations(b).map((x) => x.prompt.includes('and again')),
    [false, true],
    'one launch per turn',
  );
  t.notMatch(invocations(b)[1]!.prompt, /another machine/);
});

test('a task working on another host stays off limits, and the error names the host', async (t) => {
  const { c } = await clones(t);
  const [a, b] = c as [Clone, Clone];
  const id = await a.l.create('long work', '--accept', 'done');
  const la = cli(a.sb, { LAZY_HOST: 'host-a', FAKE_LOG: a.log, FAKE_SCENARIO: 'hang' });
  t.equal((await la('start', id)).code, 0);
  await a.l('push');
  await b.l('pull');
  t.equal((await b.l.json('show', id)).value.status, 'working');
  for (const args of [
    ['unblock', id, '-m', 'queue this'],
    ['accept', id, '--yes'],
    ['close', id],
    ['reject', id],
  ]) {
    const r = await b.l.json(...args);
    t.equal(r.run.code, 4, `${args[0]} exits 4`);
    t.match(r.value.error.message, /working on host-a/, `${args[0]} names the host`);
    t.equal(r.value.error.details.host, 'host-a');
  }
  t.equal((await b.l.json('show', id)).value.turns.length, 1, 'no feedback was queued');
  // Once the turn has ended there, B may reject and close from the fetched branches.
  t.equal((await la.json('stop', id)).value.task.status, 'interrupted');
  const r = await runOnA(a, 'to reject');
  const k = await runOnA(a, 'to close');
  await pullOnB(b, r);
  t.ok(b.git('branch', '--list', `lazy/${k}`).trim(), 'the same pull brought the other branch');
  t.equal((await b.l.json('close', id)).value.task.status, 'abandoned', 'the stopped task closes on B');
  // Pairing on B does not try to resume the agent session that lives on host-a either.
  mkdirSync(b.sb.home, { recursive: true });
  const argsFile = join(b.sb.home, 'pair-args.txt');
  const script = join(b.sb.home, 'pair.sh');
  writeFileSync(script, `#!/bin/sh\necho "args:$*" > "${argsFile}"\n`);
  chmodSync(script, 0o755);
  await b.l('config', 'set', 'agents.fake.interactive', `"${script}" --resume {session}`, '--local');
  const sid = (await b.l.json('show', r)).value.agent_session_id;
  t.ok(sid, "A's agent session id travelled with the task");
  const paired = await b.l('pair', r);
  t.equal(paired.code, 0, paired.stderr);
  t.equal(readFileSync(argsFile, 'utf8'), 'args:\n', `no --resume ${sid}: a fresh interactive session`);
  const rej = await b.l.json('reject', r, '-m', 'not this way');
  t.equal(rej.run.code, 0, rej.run.stderr);
  t.equal(rej.value.task.status, 'abandoned');
  t.same(rej.value.branch, { name: `lazy/${r}`, deleted: false, unmerged_commits: 1 }, 'unmerged work is kept');
  const cl = await b.l.json('close', k, '--delete-branch');
  t.equal(cl.run.code, 0, cl.run.stderr);
  t.equal(cl.value.task.status, 'abandoned');
  t.equal(cl.value.branch.deleted, true);
});
