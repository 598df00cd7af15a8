import t from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../helpers/env.js';
import { agentSandbox } from '../helpers/agent.js';
import { claude } from '../../lib/agents/adapters/claude.js';
import { codex } from '../../lib/agents/adapters/codex.js';
import { command } from '../../lib/agents/adapters/command.js';
import { mergeCommands, unwrapShell } from '../../lib/agents/adapters/commands.js';
import type { Adapter, StreamState } from '../../lib/agents/adapters/adapter.js';

// Issue 13, section 4: the review's commands run come from the agent's own stream (claude's
// Bash tool calls with their results, codex's command_execution items), merged with the
// envelope's list without duplicates.

const FIX = join(ROOT, 'test', 'fixtures', 'agents');

function replay(adapter: Adapter, dir: string, name: string): StreamState {
  const state: StreamState = {};
  for (const line of readFileSync(join(FIX, dir, `${name}.stdout`), 'utf8').split('\n'))
    if (line) adapter.parseLine(line, state);
  return state;
}

t.test('recorded claude 2.1.197: Bash tool calls paired with their results and exit codes', async (t) => {
  const s = replay(claude, 'claude-2.1.197', 'bash-commands');
  t.same(s.commands, [
    { command: 'echo hello from bash', exit_code: 0 },
    { command: 'ls /nonexistent-lazy-fixture', exit_code: 2 },
  ]);
  t.same(s.pendingCommands, {}, 'every call got its result');
  t.equal(s.result, 'Ran two commands; the second failed.', 'the rest of parseLine is unchanged');
  t.equal(s.isError, false);
  t.equal(replay(claude, 'claude-2.1.197', 'success-write').commands, undefined, 'a Write is no command');
  t.equal(replay(claude, 'claude-2.1.197', 'write-denied').commands, undefined, 'a denied call ran nothing');
});

t.test('recorded codex 0.171.0: command_execution items, bash -lc unwrapped', async (t) => {
  const s = replay(codex, 'codex-0.171.0', 'command-execution');
  t.same(s.commands, [
    { command: 'echo hello from codex', exit_code: 0 },
    { command: 'ls /nonexistent-lazy-fixture', exit_code: 2 },
  ]);
  t.equal(s.result, 'Ran two commands; the second failed.');
  t.equal(s.sessionId, '01a23131-20f9-7c52-a4e6-e9b250017bb9');
  t.equal(replay(codex, 'codex-0.171.0', 'success-text').commands, undefined);
  const declined: StreamState = {};
  codex.parseLine(
    JSON.stringify({
      type: 'item.completed',
      item: { id: 'x', type: 'command_execution', command: 'rm -rf /', exit_code: null, status: 'declined' },
    }),
    declined,
  );
  t.equal(declined.commands, undefined, 'a declined command has no exit code: it ran nothing');
});

t.test('a command agent has no dialect: no commands from its output, its lines shown as written', async (t) => {
  const s: StreamState = {};
  command.parseLine('$ npm test', s);
  t.equal(s.commands, undefined);
  t.same(command.events('{"type":"assistant"}'), [{ kind: 'raw', line: '{"type":"assistant"}' }]);
});

t.test('unwrapShell: the shell wrapper codex puts around each command', async (t) => {
  t.equal(unwrapShell("/bin/bash -lc 'npm test'"), 'npm test');
  t.equal(unwrapShell("bash -lc 'echo '\\''hi'\\'''"), "echo 'hi'", 'quotes inside the wrapper');
  t.equal(unwrapShell("sh -c 'make'"), 'make');
  t.equal(unwrapShell('npm test'), 'npm test', 'anything else is itself');
  t.equal(unwrapShell("bash -lc 'a' && rm x"), "bash -lc 'a' && rm x", 'only a whole-line wrapper');
});

t.test(
  'mergeCommands: the stream first, then what only the envelope names; one entry per command and exit code',
  async (t) => {
    const merged = mergeCommands(
      [
        { command: 'npm test', exit_code: 1 },
        { command: 'npm test', exit_code: 0 },
        { command: 'npm  test ', exit_code: 0 },
      ],
      [
        { command: "bash -lc 'npm test'", exit_code: 0 },
        { command: 'npm test', exit_code: 1 },
        { command: 'make docs', exit_code: 0 },
      ],
    );
    t.same(merged, [
      { command: 'npm test', exit_code: 1 },
      { command: 'npm test', exit_code: 0 },
      { command: 'make docs', exit_code: 0 },
    ]);
    t.equal(mergeCommands([], []), undefined, 'nothing run: no list');
    t.equal(mergeCommands(undefined, undefined), undefined);
    const many = Array.from({ length: 1200 }, (_, i) => ({ command: `step ${i}`, exit_code: 0 }));
    t.equal(mergeCommands(many)!.length, 1000, "capped at the envelope schema's 1,000");
  },
);

const EXPECTED = [
  { command: 'npm test', exit_code: 0 },
  { command: 'npm run lint', exit_code: 1 },
  { command: 'make docs', exit_code: 0 },
];

for (const adapter of ['codex', 'claude'] as const) {
  t.test(`a ${adapter} turn that ran commands shows them in the review, merged with the envelope's`, async (t) => {
    const box = await agentSandbox({ settings: { 'agents.fake.adapter': adapter } });
    t.teardown(box.sb.cleanup);
    box.scenario('ran-commands');
    const id = await box.l.create('run the checks', '--accept', 'done');
    await box.l('start', id);
    const w = await box.l.json('wait', id, '--timeout', '30');
    t.equal(w.value.task.status, 'blocked', JSON.stringify(w.value.task.attention));
    const turn = w.value.task.turns.find((x: any) => x.role === 'agent');
    t.same(turn.details.commands, EXPECTED, "the stream's two, and the envelope's make docs once");
    const show = await box.l('show', id);
    t.match(show.stdout, /commands run:/);
    t.match(show.stdout, /FAIL\(1\) npm run lint/, 'the failure the agent did not report is in the review');
    t.match(show.stdout, /ok\s+npm test/);
  });
}

t.test('without an envelope the stream alone gives the commands run (codex)', async (t) => {
  const box = await agentSandbox({ settings: { 'agents.fake.adapter': 'codex' } });
  t.teardown(box.sb.cleanup);
  box.scenario('ran-commands-bare');
  const id = await box.l.create('run the checks', '--accept', 'done');
  await box.l('start', id);
  const w = await box.l.json('wait', id, '--timeout', '30');
  const turn = w.value.task.turns.find((x: any) => x.role === 'agent');
  t.equal(turn.content, 'done', "codex's last agent message is the summary");
  t.same(turn.details.commands, EXPECTED.slice(0, 2));
});

t.test("the commands an attempt ran before a retried failure stay in the turn's record", async (t) => {
  const box = await agentSandbox({ adapter: 'claude' });
  t.teardown(box.sb.cleanup);
  box.scenario('ran-commands-rate-limit,succeed');
  const id = await box.l.create('run the checks', '--accept', 'done');
  await box.l('start', id);
  const w = await box.l.json('wait', id, '--timeout', '30');
  const turn = w.value.task.turns.find((x: any) => x.role === 'agent');
  t.equal(turn.details.attempts, 2, 'the rate limit was retried within the turn');
  t.same(turn.details.commands, EXPECTED.slice(0, 2), "the first attempt's two; the envelope's npm test is the same");
});
