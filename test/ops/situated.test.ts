import t, { type Test } from 'tap';
import { agentSandbox, type AgentBox } from '../helpers/agent.js';
import { cli, gitSync, type Sandbox } from '../helpers/env.js';
import { mcpInproc } from '../helpers/mcp.js';
import { team, withFakeAgent } from '../helpers/team.js';

t.jobs = 4;

// available_actions is exact on every surface: what the table cannot know (where the turn runs, whether the branch
// is here and is what the review saw, the task's family) is folded in, the same on show, list --json, inbox --json,
// wait and their MCP tools; what a listed action needs from its caller is named in action_conditions. Every
// situation is checked both ways: not listed, and refused with exit 4; listed again, and it succeeds.

type Run = ReturnType<typeof cli>;

interface Seen {
  actions: string[];
  conditions: { action: string; requires: string }[];
}

/** Every surface's actions and conditions for one task (inbox only when the task is in it). */
async function surfaces(l: Run, sb: Sandbox, id: string): Promise<Record<string, Seen>> {
  const seen = (x: any): Seen => ({ actions: x.available_actions, conditions: x.action_conditions });
  const out: Record<string, Seen> = {};
  out.show = seen((await l.json('show', id)).value);
  out.list = seen((await l.json('list', '--all')).value.find((r: any) => r.id === id));
  const item = (await l.json('inbox')).value.find((i: any) => i.id === id);
  if (item) out.inbox = seen(item);
  const m = await mcpInproc(sb, [], sb.env);
  try {
    out.mcp_show = seen(await m.ok('lazy_show', { id }));
    out.mcp_list = seen((await m.ok('lazy_list', { all: true })).items.find((r: any) => r.id === id));
    const mi = (await m.ok('lazy_inbox', {})).items.find((i: any) => i.id === id);
    if (mi) out.mcp_inbox = seen(mi);
  } finally {
    await m.close();
  }
  return out;
}

/** Every surface agrees with `want` (MCP's without pair). */
async function agree(t: Test, l: Run, sb: Sandbox, id: string, want: Seen, what: string): Promise<void> {
  const s = await surfaces(l, sb, id);
  const strip = (x: Seen) => ({
    actions: x.actions.filter((a) => a !== 'pair'),
    conditions: x.conditions.filter((c) => c.action !== 'pair'),
  });
  for (const [k, v] of Object.entries(s)) {
    const got = { actions: v.actions, conditions: v.conditions };
    t.same(got, k.startsWith('mcp_') ? strip(want) : want, `${what}: ${k}`);
  }
}

const has = (s: Seen, a: string) => s.actions.includes(a);

async function refused(t: Test, l: Run, args: string[], what: string, notListed: string) {
  const r = await l.json(...args);
  t.equal(r.run.code, 4, `${what}: ${args[0]} exits 4 (${r.run.stdout.slice(0, 200)})`);
  t.notOk(
    r.value.error.details.available_actions.includes(notListed),
    `${what}: its refusal does not list ${notListed}`,
  );
  return r.value.error;
}

async function show(l: Run, id: string): Promise<Seen> {
  const v = (await l.json('show', id)).value;
  return { actions: v.available_actions, conditions: v.action_conditions };
}

t.test("open subtasks hold the parent's accept; an active parent holds a subtask's", async (t) => {
  const box = await agentSandbox();
  t.teardown(box.sb.cleanup);
  const { l, sb } = box;
  const parent = await reviewedTask(box, 'the parent');
  const child = await l.create('the child', '--parent', parent, '--accept', 'done');
  const held = await show(l, parent);
  t.notOk(has(held, 'accept'), 'accept is not listed while a subtask is open');
  t.ok(has(held, 'submit'), 'submit (which leaves the branch in place) is');
  await agree(t, l, sb, parent, held, 'open subtask');
  const err = await refused(t, l, ['accept', parent, '--yes'], 'open subtask', 'accept');
  t.same(err.details.children, [child]);

  // The subtask runs while the parent's worktree is idle; once it is reviewed, the parent goes back to working.
  t.equal((await l('start', child)).code, 0);
  t.equal((await l.json('wait', child, '--timeout', '30')).value.task.status, 'blocked');
  t.ok(has(await show(l, child), 'accept'), 'the subtask can be accepted while its parent waits');
  box.scenario('slow-succeed');
  const open = box.gate();
  t.equal((await l('unblock', parent, '-m', 'one more thing')).code, 0);
  const c = await show(l, child);
  t.notOk(has(c, 'accept'), 'not while the parent works');
  await agree(t, l, sb, child, c, 'active parent');
  await refused(t, l, ['accept', child, '--yes'], 'active parent', 'accept');
  open();
  const w = (await l.json('wait', parent, '--timeout', '30')).value.task;
  t.notOk(w.available_actions.includes('accept'), 'wait: the parent still has an open subtask');
  t.ok(has(await show(l, child), 'accept'), 'the parent parked: the subtask is listed again');
  t.equal((await l('accept', child, '--yes')).code, 0, 'and it succeeds');
  const p = await show(l, parent);
  t.ok(has(p, 'accept'), 'the subtask done, the parent lists accept');
  t.same(p.conditions, []);
  t.equal((await l('accept', parent, '--yes')).code, 0, 'and the parent lands');
});

t.test('a branch that is not what the review saw, or not here, holds accept and submit', async (t) => {
  const box = await agentSandbox();
  t.teardown(box.sb.cleanup);
  const { l, sb } = box;
  const id = await reviewedTask(box, 'reviewed work');
  const before = await show(l, id);
  t.ok(has(before, 'accept') && has(before, 'submit'), 'reviewed: accept and submit listed');
  const wt = (await l.json('show', id)).value.worktree as string;
  const reviewed = gitSync(sb.dir, sb.env, ['rev-parse', `lazy/${id}`]).trim();
  gitSync(wt, sb.env, ['commit', '-q', '--allow-empty', '-m', 'after the review, by hand']);
  const moved = await show(l, id);
  t.notOk(has(moved, 'accept') || has(moved, 'submit'), 'a commit after the review: neither listed');
  t.ok(has(moved, 'unblock'), 'a turn whose review covers it is');
  await agree(t, l, sb, id, moved, 'unreviewed head');
  const err = await refused(t, l, ['accept', id, '--yes'], 'unreviewed head', 'accept');
  t.equal(err.code, 'unreviewed_head');
  gitSync(wt, sb.env, ['reset', '-q', '--hard', reviewed]);
  t.same(await show(l, id), before, 'back at the reviewed head: listed again');

  // The branch deleted outside lazy: nothing that needs it is listed (its work is named for a restore).
  gitSync(sb.dir, sb.env, ['worktree', 'remove', '--force', wt]);
  gitSync(sb.dir, sb.env, ['branch', '-D', `lazy/${id}`]);
  const gone = await show(l, id);
  for (const a of ['accept', 'submit', 'unblock', 'ask', 'pair'])
    t.notOk(has(gone, a), `branch gone: ${a} is not listed`);
  t.ok(has(gone, 'close') && has(gone, 'reject') && has(gone, 'comment'), 'what needs no branch is');
  await agree(t, l, sb, id, gone, 'branch gone');
  for (const args of [
    ['accept', id, '--yes'],
    ['unblock', id, '-m', 'again'],
    ['ask', id, '-m', 'what?'],
  ])
    await refused(t, l, args, 'branch gone', args[0]!);
  gitSync(sb.dir, sb.env, ['branch', `lazy/${id}`, reviewed]);
  // Branches are read from git's ref files: a packed one counts as well as a loose one.
  gitSync(sb.dir, sb.env, ['pack-refs', '--all']);
  t.same(await show(l, id), before, 'restored (and packed): listed again');
  t.same((await surfaces(l, sb, id)).list, before, 'list reads the packed branch too');
  t.equal((await l('accept', id, '--yes')).code, 0, 'and it lands');
});

t.test('pending protected files: accept and unblock are listed with their condition', async (t) => {
  const box = await agentSandbox({ settings: { protected: 'config/**' } });
  t.teardown(box.sb.cleanup);
  const { l, sb } = box;
  box.scenario('protected');
  const id = await reviewedTask(box, 'touch the secrets');
  const s = await show(l, id);
  t.ok(has(s, 'accept') && has(s, 'unblock'));
  t.same(
    s.conditions,
    s.actions.filter((a) => a === 'accept' || a === 'unblock').map((action) => ({ action, requires: 'decisions' })),
    'both need a decision on every protected file, in the order the actions are listed',
  );
  t.equal(s.conditions.length, 2);
  await agree(t, l, sb, id, s, 'pending decisions');
  t.match((await l('show', id)).stdout, /accept \(with a decision on each protected file\)/, 'show says so in text');
  const r = await l.json('accept', id, '--yes');
  t.equal(r.run.code, 4, 'without a decision accept is refused');
  t.same(r.value.error.details.pending_files, ['config/secrets.env']);
  t.equal((await l('accept', id, '--yes', '--approve-all')).code, 0, 'with one it lands');
});

t.test('a task working in another clone: only comment, edit and stop --force', async (t) => {
  const tm = team(2, 'lazy-situated');
  t.teardown(tm.cleanup);
  const sbs = tm.clones.map((sb, i) => ({ ...sb, env: { ...sb.env, LAZY_HOST: `host-${'ab'[i]}` } }));
  await withFakeAgent(sbs[0]!);
  const a = cli(sbs[0]!, { FAKE_SCENARIO: 'hang' });
  const b = cli(sbs[1]!);
  const id = await a.create('long job', '--accept', 'done');
  t.equal((await a('start', id)).code, 0);
  t.equal((await a('push')).code, 0);
  t.equal((await b('pull')).code, 0);
  const there = await show(b, id);
  t.same(there.actions, ['stop', 'comment', 'edit'], 'unblock, close and reject are that clone’s');
  t.same(there.conditions, [{ action: 'stop', requires: 'force' }], 'stop breaks its claim');
  await agree(t, b, sbs[1]!, id, there, 'working elsewhere');
  t.match((await b('show', id)).stdout, /stop \(--force: it runs in another clone\)/);
  for (const args of [
    ['stop', id],
    ['unblock', id, '-m', 'more'],
    ['close', id, '-m', 'no'],
  ])
    await refused(t, b, args, 'working elsewhere', args[0] === 'stop' ? 'unblock' : args[0]!);
  t.equal((await b('comment', id, '-m', 'a note')).code, 0, 'comment is listed and succeeds');
  const here = await show(a, id);
  t.same(here.actions, ['unblock', 'stop', 'comment', 'edit'], 'in its own clone nothing is held');
  t.same(here.conditions, []);
  const forced = await b.json('stop', id, '--force');
  t.equal(forced.run.code, 0, `stop --force succeeds (${forced.run.stdout.slice(0, 200)})`);
  t.equal(forced.value.task.status, 'interrupted');
  t.equal((await a('stop', id)).code, 0, 'A ends its own agent');
});

/** A task with a criterion whose first turn ended in the blocked family; its id. */
async function reviewedTask(box: AgentBox, goal: string): Promise<string> {
  const id = await box.l.create(goal, '--accept', 'done');
  t.equal((await box.l('start', id)).code, 0);
  const w = await box.l.json('wait', id, '--timeout', '30');
  if (!['blocked', 'conflict'].includes(w.value.task.status)) throw new Error(JSON.stringify(w.value).slice(0, 300));
  return id;
}
