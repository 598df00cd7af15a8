import t from 'tap';
import { replay } from '../helpers/replay.js';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../helpers/env.js';
import { apiError, pi, PI_READ_ONLY_TOOLS, PI_SESSION_DIR } from '../../lib/agents/adapters/pi.js';
import type { StreamState } from '../../lib/agents/adapters/adapter.js';
import { renderLog } from '../../lib/output/stream.js';

// The pi adapter against recorded real output of pi 0.73.1 (test/fixtures/agents/pi-0.73.1/,
// recorded by tools/record-pi.sh against the loopback fake Anthropic server).

const PI = join(ROOT, 'test', 'fixtures', 'agents', 'pi-0.73.1');

const replayed = (name: string) => replay(pi, PI, name);

t.test('pi 0.73.1: session, result, usage and cost from the stream', async (t) => {
  const ok = replayed('success-write');
  t.match(ok.state.sessionId, /^[0-9a-f-]{36}$/, 'the session line names the id');
  t.notOk(ok.state.isError);
  t.equal(pi.resultText(ok.state, ''), 'Created hello.txt.');
  // Two model responses, each 12 in / 20 out (the fake server's figures): the turn's usage is their sum.
  t.strictSame(ok.state.usage, {
    input_tokens: 24,
    output_tokens: 40,
    cache_read_input_tokens: 0,
    cache_creation_input_tokens: 0,
  });
  t.ok(ok.state.costUsd! > 0.0006 && ok.state.costUsd! < 0.0007, `cost from models.json prices: ${ok.state.costUsd}`);
  const resumed = replayed('resume-success');
  t.equal(resumed.state.sessionId, ok.state.sessionId, 'the resumed session keeps its id');
  t.equal(resumed.state.result, 'Second-turn answer: I remember the first turn.');
});

t.test('pi 0.73.1: the commands it ran, and its live output in the shared lines', async (t) => {
  const r = replayed('bash-commands');
  t.strictSame(r.state.commands, [
    { command: 'echo hello from bash', exit_code: 0 },
    { command: 'ls /nonexistent-lazy-fixture', exit_code: 2 },
  ]);
  const shown = renderLog(pi, r.stdout).split('\n').filter(Boolean);
  t.ok(shown.includes('$ echo hello from bash'), 'a bash call is a command line');
  t.ok(shown.includes('  ✓ hello from bash'));
  t.ok(
    shown.includes("  ✗ exit 2: ls: cannot access '/nonexistent-lazy-fixture': No such file or directory"),
    shown.join('\n'),
  );
  t.match(shown.at(-1), /^✓ turn ended: 3 steps, \$0\.\d{4}$/);
  const write = renderLog(pi, replayed('success-write').stdout).split('\n');
  t.ok(write.includes('▸ write hello.txt'), write.join('\n'));
  t.ok(write.includes('  ✓ Successfully wrote 24 bytes to hello.txt'));
  t.match(write[0], /^· pi session [0-9a-f-]{36}$/);
  t.notOk(renderLog(pi, r.stdout).includes('message_update'), 'streaming deltas show nothing');
  const delta = r.stdout.split('\n').find((l) => l.startsWith('{"type":"message_update"'))!;
  t.same(pi.events(delta), [], 'a delta is skipped unparsed');
  t.equal(pi.parseLine(delta, {}), 'progress', 'but it is progress');
});

t.test('pi 0.73.1: read-only tools refuse a write (ask turns)', async (t) => {
  const r = replayed('read-only-write');
  const shown = renderLog(pi, r.stdout).split('\n').filter(Boolean);
  t.ok(shown.includes('  ✗ failed: Tool write not found'), shown.join('\n'));
  t.notOk(r.state.isError, 'a refused tool is no failed turn');
});

t.test('pi 0.73.1: failure classes from the API error pi reports', async (t) => {
  for (const [name, cls] of [
    ['invalid-api-key', 'fatal_auth'],
    ['overloaded', 'transient_overload'],
    ['rate-limited', 'transient_overload'],
    ['unreachable', 'transient_network'],
  ] as const) {
    const r = replayed(name);
    t.ok(r.state.isError, `${name}: pi exits 0, the stream says it failed`);
    t.equal(pi.classify(r.failure).cls, cls, `${name} → ${cls}`);
  }
  t.match(pi.classify(replayed('invalid-api-key').failure).reason, /^401 .*invalid x-api-key/);
  const over = replayed('overloaded');
  t.equal(over.kinds.filter((k) => k === 'retry').length, 3, "pi's own retries are not progress");
  t.equal(over.state.apiStatus, 529);
  t.equal(over.state.errorType, 'overloaded_error');
  t.match(renderLog(pi, over.stdout), /⟳ API error \(529 overloaded_error\), retry 1\/3 in 2 s/);
  t.strictSame(pi.classify(replayed('no-api-key').failure), {
    cls: 'fatal_auth',
    reason: 'No API key found for the selected model.',
  });
  const missing = replayed('resume-unknown-session');
  t.ok(pi.sessionMissing(missing.failure), 'an unknown --session starts a fresh session');
  t.notOk(pi.sessionMissing(replayed('invalid-api-key').failure));
});

t.test('pi: the error form, and prose never makes a class', async (t) => {
  t.strictSame(apiError('401 {"type":"error","error":{"type":"authentication_error","message":"x"}}'), {
    status: 401,
    type: 'authentication_error',
  });
  t.strictSame(apiError('I saw 401 {"error":{}} in the tests'), {});
  const state: StreamState = {};
  const said = (text: string) => ({
    type: 'message_end',
    message: { role: 'assistant', content: [{ type: 'text', text }], stopReason: 'stop' },
  });
  pi.parseLine(JSON.stringify(said('429 Too Many Requests; 401 invalid api key; connection refused')), state);
  t.equal(pi.classify({ exitCode: 1, signal: null, state, tail: '401 Unauthorized' }).cls, 'unknown');
  // A retry that recovered leaves no failure behind.
  const err = {
    type: 'message_end',
    message: {
      role: 'assistant',
      content: [],
      stopReason: 'error',
      errorMessage: '529 {"type":"error","error":{"type":"overloaded_error"}}',
    },
  };
  const after: StreamState = {};
  for (const l of [err, said('done')]) pi.parseLine(JSON.stringify(l), after);
  t.notOk(after.isError);
  t.equal(after.apiStatus, undefined);
});

t.test('pi argv: first turn, resume, model, permission mode, ask', async (t) => {
  const spec = { name: 'pi', adapter: 'pi' as const, command: ['pi'] };
  t.same(pi.argv(spec, { prompt: 'P', sessionId: null, mode: 'work' }), [
    'pi',
    '--mode',
    'json',
    '--session-dir',
    PI_SESSION_DIR,
    '-p',
    'P',
  ]);
  const resumed = pi.argv(spec, { prompt: 'Q', sessionId: 'S1', mode: 'ask', model: 'mock/m' });
  t.same(resumed.slice(5), ['--session', 'S1', '--model', 'mock/m', '--tools', PI_READ_ONLY_TOOLS, '-p', 'Q']);
  t.same(
    pi.argv({ ...spec, permissionMode: 'read,edit,write' }, { prompt: 'P', sessionId: null, mode: 'work' }).slice(5),
    ['--tools', 'read,edit,write', '-p', 'P'],
  );
  t.equal(
    pi.argv(spec, { prompt: '@file -x', sessionId: null, mode: 'work' }).at(-1),
    ' @file -x',
    'a prompt is never an option or a file',
  );
  t.ok(PI_SESSION_DIR.startsWith('.lazy/'), "sessions stay in lazy's own directory of the worktree");
});

t.test('every recorded pi fixture parses and classifies', async (t) => {
  for (const f of readdirSync(PI).filter((n) => n.endsWith('.stdout'))) {
    const r = replayed(f.replace(/\.stdout$/, ''));
    t.ok(pi.classify(r.failure).cls, `${f} classifies`);
  }
});
