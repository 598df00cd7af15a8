import t from 'tap';
import { agentSandbox, reviewed } from '../helpers/agent.js';
import { mcpInproc } from '../helpers/mcp.js';
import { cli, type Sandbox } from '../helpers/env.js';
import { team, withFakeAgent } from '../helpers/team.js';
import { boundTail, TAIL_BYTES, TAIL_LINES } from '../../lib/core/tail.js';
import { shellStatus, shellWord } from '../../lib/ops/run.js';

// lazy run's record (lib/ops/run.ts) and what show makes of it: the review lists people's commands apart from the
// agent's, the JSON carries them as reviewer_commands, and a builder's lazy_run records the same turn.

t.test('a run is a human command turn; show lists it under the review, apart from the agent', async (t) => {
  const box = await agentSandbox();
  t.teardown(box.sb.cleanup);
  const { l } = box;
  const id = await reviewed(box);
  const before = (await l.json('show', id)).value;
  const r = await l('run', id, '--', 'sh', '-c', 'echo all good; exit 0');
  t.equal(r.code, 0);
  t.equal(r.stdout, 'all good\n', 'the output, as it ran');
  await l('run', id, '--', 'sh', '-c', 'echo broken >&2; exit 1');
  const v = (await l.json('show', id)).value;
  t.equal(v.turns.length, before.turns.length + 2, 'two turns');
  t.equal(v.changelog.length, before.changelog.length, 'no status change');
  t.match(v.turns.at(-2), { role: 'human', kind: 'command', content: /^\$ sh -c 'echo all good; exit 0'\n\(exit 0, / });
  t.match(v.reviewer_commands, [
    { command: "sh -c 'echo all good; exit 0'", exit_code: 0, actor: 'human', signal: null },
    { command: "sh -c 'echo broken >&2; exit 1'", exit_code: 1, actor: 'human' },
  ]);
  t.equal(v.reviewer_commands[1].sequence, v.turns.length);

  const text = (await l('show', id)).stdout;
  const at = text.indexOf('commands run by people:');
  t.ok(at > 0, 'the review has a section of its own');
  t.ok(at < text.indexOf('risks'), 'inside the review, before its risks');
  t.match(
    text.slice(at),
    /ok +sh -c 'echo all good; exit 0' {2}— Ada Lovelace \(human\), [\d-]+ [\d:]+, \d+\.\d s \(turn #\d+\)/,
  );
  t.match(text.slice(at), /FAIL\(1\) sh -c 'echo broken >&2; exit 1'/);

  // The next review is of other work: the commands run on the earlier one are no longer its.
  await l('unblock', id, '-m', 'once more');
  await l('wait', id, '--timeout', '30');
  const after = (await l.json('show', id)).value;
  // The next turn's prompt carries them once, as the person saw them: a failing test run reaches the agent.
  const prompt = box.invocations().at(-1)!.prompt as string;
  t.match(prompt, /Commands people ran in your worktree since your last turn \(2\)/);
  t.match(
    prompt,
    /--- command #\d+ by human Ada Lovelace at [^,]+, on [0-9a-f]{12}, exit code 1:\n\$ sh -c 'echo broken >&2; exit 1'\noutput:\n\| broken/,
  );
  t.ok(prompt.indexOf('once more') < prompt.indexOf('Commands people ran'), 'after the feedback it goes with');
  t.same(after.reviewer_commands, [], 'a newer review starts a new list');
  t.notOk((await l('show', id)).stdout.includes('commands run by people'));
  t.equal(after.turns.filter((x: any) => x.kind === 'command').length, 2, 'the turns stay in the history');
});

t.test('lazy_run: a builder records the same turn, its output only in the reply', async (t) => {
  const box = await agentSandbox();
  t.teardown(box.sb.cleanup);
  const id = await reviewed(box);
  const mcp = await mcpInproc(box.sb);
  t.teardown(() => mcp.close());
  const doc = await mcp.ok('lazy_run', { id, command: ['sh', '-c', 'echo from the builder; exit 2'] });
  t.match(doc, {
    command: ['sh', '-c', 'echo from the builder; exit 2'],
    exit_code: 2,
    output_tail: 'from the builder',
  });
  t.match((doc as any).task.turns.at(-1), { role: 'human', kind: 'command', actor: 'builder' });
  t.notOk(mcp.stderr().includes('[stdout!]'), "nothing written to the server's stdout");
  const empty = await mcp.call('lazy_run', { id, command: [] });
  t.ok(empty.isError, 'an empty command is refused');
  const tools = (await mcp.client.listTools()).tools.map((x) => x.name);
  t.ok(tools.includes('lazy_run'));
});

t.test('the record travels with push and pull, and the pulled branch runs there too', async (t) => {
  const tm = team(2, 'lazy-run');
  t.teardown(tm.cleanup);
  const [A, B] = tm.clones as [Sandbox, Sandbox];
  await withFakeAgent(A);
  const [a, b] = [cli(A), cli(B)];
  const id = await a.create('shared work', '--accept', 'done');
  await a('start', id);
  await a('wait', id, '--timeout', '60');
  t.equal((await a('run', id, '--', 'sh', '-c', 'exit 4')).code, 4);
  t.equal((await a('push')).code, 0);
  t.equal((await b('pull')).code, 0);
  const v = (await b.json('show', id)).value;
  t.match(v.reviewer_commands, [{ command: "sh -c 'exit 4'", exit_code: 4, person: 'Dev 0', actor: 'human' }]);
  t.ok(v.available_actions.includes('run'), 'the branch came with the pull: run is listed there');
  const there = await b('run', id, '--', 'git', 'log', '-1', '--format=%an');
  t.equal(there.code, 0, there.stderr);
  t.equal((await b.json('show', id)).value.reviewer_commands.at(-1).person, 'Dev 1');
});

t.test('the tail: the last lines, then the last bytes, printable', async (t) => {
  const many = Array.from({ length: 100 }, (_, i) => `line ${i}`).join('\n') + '\n';
  const tail = boundTail(many);
  t.equal(tail.split('\n').length, TAIL_LINES);
  t.equal(tail.split('\n').at(-1), 'line 99');
  const wide = Array.from({ length: 30 }, (_, i) => `${i} ${'é'.repeat(200)}`).join('\n');
  const cut = boundTail(wide);
  t.ok(Buffer.byteLength(cut) <= TAIL_BYTES);
  t.match(cut, /^\d+ é+\n/, 'a whole line first: the one the cut split is dropped');
  t.equal(boundTail('50%\r100%\ndone\r\n'), '100%\ndone', "a carriage return's line as a terminal leaves it");
  t.equal(boundTail('\u001b[1;32mgreen\u001b[0m \u0007bell'), 'green \\u0007bell');
  t.equal(boundTail('partial line\nwhole\n', true), 'whole', 'the start of a cut stream is dropped');
  t.equal(shellWord("it's"), `'it'\\''s'`);
  t.equal(shellWord('a-b/c.d'), 'a-b/c.d');
  t.equal(shellWord(''), "''");
  t.equal(shellStatus({ exit_code: null, signal: 'SIGKILL' }), 137);
  t.equal(shellStatus({ exit_code: 3, signal: null }), 3);
});
