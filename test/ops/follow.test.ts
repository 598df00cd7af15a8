import t from 'tap';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { agentSandbox, eventually, runDirOf } from '../helpers/agent.js';

// Issue 13, section 3: --follow shows the agent's stream as lines a person reads (the raw
// stream stays in the run log), and ends exactly as wait does: the final status, the same exit code.

t.jobs = 3;

const noJson = (out: string) => out.split('\n').filter((l) => l.trimStart().startsWith('{'));

t.test('wait --follow renders a claude turn readably: text, each command, failures marked', async (t) => {
  const box = await agentSandbox({ adapter: 'claude' });
  t.teardown(box.sb.cleanup);
  box.scenario('ran-commands');
  const id = await box.l.create('run the checks', '--accept', 'done');
  t.equal((await box.l('start', id)).code, 0);
  const r = await box.l('wait', id, '--follow', '--timeout', '60');
  t.equal(r.code, 0, r.stderr);
  const lines = r.stdout.split('\n');
  t.same(noJson(r.stdout), [], 'no raw JSON reaches the reader');
  t.ok(lines.includes('$ npm test'), 'the command of each tool call');
  t.ok(lines.includes('  ✓ 2 passing'), 'a result');
  t.ok(lines.includes('$ npm run lint'));
  t.ok(lines.includes('  ✗ exit 1: lint: 1 problem'), 'a failure is marked, with its exit code');
  t.ok(lines.includes('Running npm test.'), 'the assistant text');
  t.ok(lines.includes('fake agent: invocation 1, scenario ran-commands'), 'plain output passes through');
  t.ok(
    lines.some((l) => /^\[lazy [^\]]+\] outcome: completed$/.test(l)),
    "lazy's own notes in the log pass through",
  );
  t.ok(
    lines.some((l) => l.startsWith('✓ turn ended: ')),
    "the turn's end",
  );
  t.equal(lines.filter(Boolean).at(-1), (await box.l('wait', id)).stdout.trim(), "the last line is wait's");
  const log = (await box.l.json('show', id)).value;
  t.equal(log.status, 'blocked');
});

t.test('start --follow renders a codex turn readably and ends with where it landed', async (t) => {
  const box = await agentSandbox({ settings: { 'agents.fake.adapter': 'codex' } });
  t.teardown(box.sb.cleanup);
  box.scenario('ran-commands');
  const id = await box.l.create('run the checks', '--accept', 'done');
  const r = await box.l('start', id, '--follow');
  t.equal(r.code, 0, r.stderr);
  t.same(noJson(r.stdout), []);
  const lines = r.stdout.split('\n');
  t.ok(lines.includes('$ npm test'), 'bash -lc unwrapped');
  t.ok(lines.includes('  ✗ exit 1: lint: 1 problem'));
  t.ok(lines.includes('done'), "codex's agent message");
  t.ok(lines.includes('✓ turn ended: 10 in / 2 out tokens'));
  t.match(lines.filter(Boolean).at(-1), new RegExp(`^${id}: blocked — `), 'the final status, as wait prints it');
  t.notMatch(r.stdout, /working —/, 'not the launch line of a task that is no longer working');
});

t.test('a command agent under --follow: its lines exactly as it printed them', async (t) => {
  const box = await agentSandbox();
  t.teardown(box.sb.cleanup);
  box.scenario('ran-commands');
  const id = await box.l.create('run the checks', '--accept', 'done');
  const r = await box.l('start', id, '--follow');
  t.equal(r.code, 0, r.stderr);
  t.match(r.stdout, /^\$ npm test\n2 passing\n\$ npm run lint\nlint: 1 problem$/m);
});

t.test('--follow ends exactly as wait does after the breaker stopped a crashing task', async (t) => {
  const box = await agentSandbox();
  t.teardown(box.sb.cleanup);
  box.scenario('crash');
  const id = await box.l.create('crash every time', '--accept', 'done');
  const r = await box.l('start', id, '--follow');
  const v = (await box.l.json('show', id)).value;
  t.equal(v.status, 'interrupted', 'the breaker stopped auto-resuming');
  const w = await box.l('wait', id);
  t.equal(w.code, 4, 'wait refuses a task that did not land blocked');
  t.equal(r.code, w.code, "start --follow exits with wait's code");
  t.equal(r.stderr, w.stderr, 'and the same error, naming the status it ended in');
  t.match(r.stderr, /ended interrupted/);
  t.notMatch(r.stdout, /working —/, 'never "working" once the task stopped');
  t.match(r.stdout, /^\[lazy\] following run \S+$/m, 'the follower went on to each auto-resumed run');
  t.ok(
    r.stdout.split('\n').filter((l) => l.startsWith('fake agent: invocation ')).length >= 2,
    'and showed its output',
  );
  const j = await box.l.json('wait', id, '--follow');
  t.equal(j.run.code, 4, 'wait --follow too');
  t.equal(j.value.error.code, 'action_not_allowed');
  t.equal(j.value.error.details.status, 'interrupted');
});

t.test("watch shows a running turn's last output readable; --json rows carry it parsed", async (t) => {
  const box = await agentSandbox({ adapter: 'claude' });
  box.scenario('ran-commands-hang');
  const id = await box.l.create('run the checks, then hang', '--accept', 'done');
  // The agent hangs: stopped however the test ends, before its sandbox goes.
  t.teardown(async () => {
    await box.l('stop', id);
    await box.sb.cleanup();
  });
  await box.l('start', id);
  const row = await eventually(
    async () => {
      const rows = (await box.l.json('watch')).value as any[];
      const r = rows.find((x) => x.id === id);
      // The log is written as it comes: wait for the last command's result, not any result.
      return r?.last_event?.kind === 'result' && r.last_event.id === 'call_1' && r;
    },
    20_000,
    'the last command result in the log',
  );
  t.match(row.last_line, /^\{"type":"user"/, 'last_line stays the raw line');
  t.same(row.last_event, { kind: 'result', id: 'call_1', ok: false, exit_code: 1, text: 'lint: 1 problem' });
  const text = await box.l('watch', '--once');
  t.match(text.stdout, /✗ exit 1: lint: 1 problem/);
  t.notMatch(text.stdout, /"type"/, 'no raw JSON in the view');
  t.equal((await box.l('stop', id)).code, 0);
});

t.test('a follower joining a long run late starts at its first whole line, and times out as wait does', async (t) => {
  const box = await agentSandbox({ adapter: 'claude' });
  box.scenario('chatty-hang');
  const id = await box.l.create('talk a lot, then hang', '--accept', 'done');
  t.teardown(async () => {
    await box.l('stop', id);
    await box.sb.cleanup();
  });
  const run = (await box.l.json('start', id)).value.run.id;
  const log = join(runDirOf(box.sb, run), 'output.log');
  // The whole of the agent's talk is in the log (it ends with "line 3000"), past the 64 KiB the follower starts from.
  await eventually(() => existsSync(log) && readFileSync(log, 'utf8').includes('line 3000'), 20_000, 'a long log');
  const r = await box.l('wait', id, '--follow', '--timeout', '1');
  t.equal(r.code, 5, 'the timeout of wait');
  const lines = r.stdout.split('\n').filter(Boolean);
  t.ok(lines.length > 100, `the log's tail was shown (${lines.length} lines)`);
  t.same(
    lines.filter((l) => !/^line \d+$/.test(l)),
    [],
    'only whole lines, rendered: no fragment of a line cut at the 64 KiB mark',
  );
  t.equal(lines.at(-1), 'line 3000');
});

t.test("show's current turn log is readable too; its --json keeps the raw lines", async (t) => {
  const box = await agentSandbox({ adapter: 'claude' });
  t.teardown(box.sb.cleanup);
  box.scenario('ran-commands-hang');
  const id = await box.l.create('run the checks', '--accept', 'done');
  t.equal((await box.l('start', id)).code, 0);
  const text = await eventually(async () => {
    const r = await box.l('show', id);
    // The failure line is the last the agent prints before it hangs: the log is read once it is there.
    return r.stdout.includes('✗ exit 1: lint: 1 problem') ? r.stdout : undefined;
  });
  const log = text.slice(text.indexOf('Current turn log'));
  t.same(noJson(log), [], 'no raw JSON in the text view');
  t.match(log, /✗ exit 1: lint: 1 problem/, 'a failure marked');
  const shown = (await box.l.json('show', id)).value;
  t.equal(shown.run.adapter, 'claude');
  t.ok(
    shown.run.log.some((l: string) => l.startsWith('{')),
    'the JSON keeps the raw stream',
  );
  await box.l('stop', id);
});
