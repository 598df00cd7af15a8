import t from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../helpers/env.js';
import { claude } from '../../lib/agents/adapters/claude.js';
import { codex } from '../../lib/agents/adapters/codex.js';
import { command } from '../../lib/agents/adapters/command.js';
import { lastEvent, type Adapter } from '../../lib/agents/adapters/adapter.js';
import { renderEvent, renderLine, renderLog } from '../../lib/output/stream.js';
import { renderWatch } from '../../lib/output/watch.js';

// Issue 13, section 3: the recorded streams of the real CLIs (test/fixtures/agents/), replayed
// through each adapter's event parser and the renderer, read as lines a person follows.

const FIX = join(ROOT, 'test', 'fixtures', 'agents');
const recorded = (dir: string, name: string) => readFileSync(join(FIX, dir, `${name}.stdout`), 'utf8');
const rendered = (a: Adapter, dir: string, name: string) => renderLog(a, recorded(dir, name)).split('\n');

t.test('claude 2.1.197 running Bash: text, each command, results with the failure marked', async (t) => {
  const lines = rendered(claude, 'claude-2.1.197', 'bash-commands');
  t.same(lines, [
    '· claude session cad09e4e-abe4-42f9-86b4-9ca583748990 (claude-opus-4-8[1m])',
    'Running `echo hello from bash`.',
    '$ echo hello from bash',
    '  ✓ hello from bash',
    'Running `ls /nonexistent-lazy-fixture`.',
    '$ ls /nonexistent-lazy-fixture',
    "  ✗ exit 2: ls: cannot access '/nonexistent-lazy-fixture': No such file or directory",
    'Ran two commands; the second failed.',
    '✓ turn ended: 3 steps, $0.0017',
    '',
  ]);
});

t.test('claude 2.1.197: a file tool call names its file; a denied call is marked failed', async (t) => {
  const ok = rendered(claude, 'claude-2.1.197', 'success-write');
  t.ok(ok.includes('▸ Write /tmp/lazyfx/work-claude-success-write/hello.txt'), 'the tool and its file');
  t.match(
    ok.find((l) => l.startsWith('  ✓ ')),
    /^ {2}✓ File created successfully/,
  );
  const denied = rendered(claude, 'claude-2.1.197', 'write-denied');
  t.match(
    denied.find((l) => l.startsWith('  ✗')),
    /^ {2}✗ failed: Claude requested permissions to write/,
    'a failed result without an exit code',
  );
  t.ok(denied.includes('✗ permission denied: Write'), "the result line's permission_denials");
});

t.test('claude 2.1.197: retries read as retries, the failure as the end', async (t) => {
  const lines = rendered(claude, 'claude-2.1.197', 'overloaded');
  t.same(
    lines.filter((l) => l.startsWith('⟳')),
    ['⟳ API overloaded (529), retry 1/10 in 0.5 s', '⟳ API overloaded (529), retry 2/10 in 1.1 s'],
  );
  t.match(lines.at(-2), /^✗ turn failed: API Error: Repeated 529 Overloaded errors\./);
  const refused = rendered(claude, 'claude-2.1.197', 'api-retry');
  t.ok(refused.length > 3);
  t.ok(
    refused.slice(1, -1).every((l) => /^⟳ API error, retry \d+\/10 in [\d.]+ s$/.test(l)),
    'connection refused: an API error and the CLI retries',
  );
  const auth = rendered(claude, 'claude-2.1.197', 'not-logged-in');
  t.same(auth.slice(1), [
    '✗ Not logged in · Please run /login',
    '✗ turn failed: Not logged in · Please run /login',
    '',
  ]);
});

t.test('codex 0.171.0 running commands: bash -lc unwrapped, exit codes, the answer, the end', async (t) => {
  t.same(rendered(codex, 'codex-0.171.0', 'command-execution'), [
    '· codex thread 01a23131-20f9-7c52-a4e6-e9b250017bb9',
    '$ echo hello from codex',
    '  ✓ hello from codex',
    '$ ls /nonexistent-lazy-fixture',
    "  ✗ exit 2: ls: cannot access '/nonexistent-lazy-fixture': No such file or directory",
    'Ran two commands; the second failed.',
    '✓ turn ended: 300 in / 30 out tokens',
    '',
  ]);
});

t.test('codex 0.171.0: reconnects read as retries; a failed turn as the end', async (t) => {
  const lines = rendered(codex, 'codex-0.171.0', 'unreachable');
  t.equal(
    lines[1],
    '⟳ stream disconnected before completion: Connection refused (os error 111), retry 2/5',
    'codex numbers its reconnects',
  );
  t.ok(lines.includes('⟳ waiting for network (Connection failed: error sending request), retrying'));
  t.match(lines.join('\n'), /^· Falling back from WebSockets to HTTPS transport\./m, 'a warning item is a note');
  const failed = rendered(codex, 'codex-0.171.0', 'quota-exceeded');
  t.ok(failed.includes('✗ turn failed: Quota exceeded. Check your plan and billing details.'), failed.join('\n'));
});

t.test('no recorded line renders as raw JSON', async (t) => {
  const cases: [Adapter, string, string[]][] = [
    [claude, 'claude-2.1.197', ['bash-commands', 'success-write', 'overloaded', 'rate-limited', 'invalid-api-key']],
    [codex, 'codex-0.171.0', ['command-execution', 'success-text', 'invalid-api-key', 'resume-success']],
  ];
  for (const [a, dir, names] of cases)
    for (const n of names)
      t.same(
        rendered(a, dir, n).filter((l) => l.startsWith('{')),
        [],
        `${dir}/${n}`,
      );
});

t.test("lines that are not the agent's dialect pass through unchanged", async (t) => {
  const note = '[lazy 2026-12-01T10:00:00.000Z] attempt 1: claude (claude)';
  t.same(renderLine(claude, note), [note], "lazy's own notes");
  t.same(renderLine(codex, 'plain text from a wrapper'), ['plain text from a wrapper']);
  const json = '{"type":"assistant","message":{"content":[{"type":"text","text":"x"}]}}';
  t.same(renderLine(command, json), [json], "a command agent's lines, even JSON ones");
  t.same(renderLine(undefined, json), [json]);
  t.same(renderLine(claude, '{"type":"stream_event"}'), [], 'a line of the dialect that shows nothing');
});

t.test('agent text reaching a terminal has its control characters escaped', async (t) => {
  t.equal(renderEvent({ kind: 'text', text: 'red \u001b[31mtext' }), 'red \\u001b[31mtext');
  t.equal(renderEvent({ kind: 'tool', name: 'Bash', detail: 'echo \u0007', shell: true }), '$ echo \\u0007');
  t.equal(renderEvent({ kind: 'result', ok: true, text: '' }), undefined, 'an empty success shows nothing');
  t.equal(
    renderEvent({ kind: 'retry', what: 'API overloaded', attempt: 2, delayMs: 10_000 }),
    '⟳ API overloaded, retry 2 in 10 s',
  );
});

t.test("watch's LAST OUTPUT is the last thing the stream showed, readable", async (t) => {
  const lines = recorded('claude-2.1.197', 'bash-commands').trim().split('\n');
  const e = lastEvent(claude, lines.slice(0, 7));
  t.same(e, {
    kind: 'result',
    id: 'toolu_fake_7b3a67e680e846ac8f73',
    ok: false,
    exit_code: 2,
    text: "ls: cannot access '/nonexistent-lazy-fixture': No such file or directory",
  });
  const row = {
    id: 'ab12cd34',
    status: 'working',
    goal: 'g',
    schedule: { queued: false, priority: 0, paused: false, position: null, not_before: null } as any,
    run: 'r1',
    agent: 'claude',
    supervisor: 'alive' as const,
    heartbeat_age_s: 1,
    last_line: lines[6]!,
    last_event: e,
    substate: null,
  };
  const text = renderWatch([row]);
  t.match(text, /✗ exit 2: ls: cannot access/);
  t.notMatch(text, /"type"/, 'not the raw line');
  t.equal(lastEvent(claude, ['{"type":"stream_event"}']), null, 'nothing shown yet');
});
