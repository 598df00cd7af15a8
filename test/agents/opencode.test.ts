import t from 'tap';
import { replay } from '../helpers/replay.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../helpers/env.js';
import { opencode, opencodeConfig } from '../../lib/agents/adapters/opencode.js';
import type { StreamState } from '../../lib/agents/adapters/adapter.js';
import { renderLog } from '../../lib/output/stream.js';

// The opencode adapter against the real CLI's recorded output (test/fixtures/agents/opencode-1.18.33/,
// recorded offline by tools/rec-opencode.sh), and its launch line and per-run config.

const DIR = join(ROOT, 'test', 'fixtures', 'agents', 'opencode-1.18.33');

const replayed = (name: string) => {
  const r = replay(opencode, DIR, name);
  return { ...r, events: r.lines.flatMap((l) => opencode.events(l)) };
};

t.test('opencode 1.18.33: session, result, usage and cost from the stream', async (t) => {
  const ok = replayed('success-text');
  t.equal(ok.meta.exit_code, 0);
  t.match(ok.state.sessionId, /^ses_/);
  t.equal(opencode.resultText(ok.state, ''), 'Hello! This is the fake model answering.');
  t.same(ok.state.usage, {
    input_tokens: 30,
    output_tokens: 20,
    cache_read_input_tokens: 11,
    cache_creation_input_tokens: 7,
  });
  t.equal(ok.state.costUsd, undefined, 'a model without a price reports cost 0: no cost');
  t.ok(
    ok.kinds.every((k) => k === 'progress'),
    'every line is progress',
  );
  t.same(ok.events.at(-1), { kind: 'end', ok: true, text: 'done' });
  const resumed = replayed('resume-success');
  t.equal(resumed.state.sessionId, ok.state.sessionId, '--session continues the same session');
  t.equal(resumed.state.result, 'Resumed: I remember.');
});

t.test('opencode 1.18.33: tool calls as readable events, commands from bash with their exit codes', async (t) => {
  const w = replayed('success-write');
  t.same(
    w.events.filter((e) => e.kind === 'tool' || e.kind === 'result'),
    [
      { kind: 'tool', id: 'toolu_1_0', name: 'write', detail: 'hello.txt' },
      { kind: 'result', id: 'toolu_1_0', ok: true, text: 'Wrote file successfully.' },
    ],
  );
  t.equal(w.state.commands, undefined, 'a write runs no command');
  t.same(w.state.usage?.input_tokens, 60, 'two API calls, summed');
  const b = replayed('bash');
  t.same(b.state.commands, [
    { command: 'echo hi && ls', exit_code: 0 },
    { command: 'echo oops >&2; exit 3', exit_code: 3 },
  ]);
  t.same(
    b.events.filter((e) => e.kind === 'result'),
    [
      { kind: 'result', id: 'toolu_1_0', ok: true, exit_code: 0, text: 'hi' },
      { kind: 'result', id: 'toolu_2_0', ok: false, exit_code: 3, text: 'oops' },
    ],
  );
  t.same(
    b.events.find((e) => e.kind === 'tool'),
    {
      kind: 'tool',
      id: 'toolu_1_0',
      name: 'bash',
      detail: 'echo hi && ls',
      shell: true,
    },
  );
  const failed = replayed('tool-error').events.find((e) => e.kind === 'result');
  t.match(failed, { ok: false, text: /^File not found: / });
  t.notOk('exit_code' in failed!, 'a failed non-shell tool has no exit code');
  // The default permissions: bash is asked, and run mode rejects it; a write outside the worktree is denied.
  const asked = replayed('bash-asked');
  t.equal(asked.state.commands, undefined, 'a rejected call ran nothing');
  t.match(
    asked.events.find((e) => e.kind === 'result'),
    { ok: false, text: /rejected permission/ },
  );
  t.match(
    replayed('outside-denied').events.find((e) => e.kind === 'result'),
    { ok: false, text: /prevents you from using this specific tool call/ },
    'external_directory denies a write outside the worktree',
  );
  const mcp = replayed('mcp-call').events.filter((e) => e.kind === 'tool' || e.kind === 'result');
  t.same(
    mcp.map((e) => (e.kind === 'tool' ? e.name : e.kind === 'result' ? e.text : '')),
    ['lazy_lazy_echo', 'echoed'],
  );
});

t.test('opencode 1.18.33: failure classes from the error line', async (t) => {
  for (const [name, cls] of [
    ['auth-401', 'fatal_auth'],
    ['forbidden-403', 'fatal_auth'],
    ['overloaded-529', 'transient_overload'],
    ['unreachable', 'transient_unreachable'],
    ['model-not-found', 'unknown'],
  ] as const) {
    const r = replayed(name);
    t.equal(r.meta.exit_code, 1, `${name} exits 1`);
    t.equal(opencode.classify(r.failure).cls, cls, `${name} → ${cls}`);
  }
  t.equal(opencode.classify(replayed('auth-401').failure).reason, 'invalid x-api-key (401)');
  t.same(replayed('auth-401').events, [{ kind: 'end', ok: false, text: 'invalid x-api-key (401)' }]);
  t.ok(opencode.sessionMissing(replayed('resume-unknown-session').failure), 'an unknown --session');
  t.notOk(opencode.sessionMissing(replayed('auth-401').failure));
  t.notOk(opencode.sessionMissing(replayed('success-text').failure));
});

const line = (o: unknown) => JSON.stringify(o);
function feed(lines: unknown[], exitCode = 1) {
  const state: StreamState = {};
  for (const l of lines) opencode.parseLine(line(l), state);
  return { exitCode, signal: null, state, tail: lines.map(line).join('\n') };
}

t.test('opencode: structured fields decide, never prose', async (t) => {
  const apiError = (data: Record<string, unknown>) => ({
    type: 'error',
    sessionID: 'ses_x',
    error: { name: 'APIError', data },
  });
  const said = {
    type: 'text',
    sessionID: 'ses_x',
    part: { type: 'text', text: 'HTTP 401 Unauthorized; rate limit; usage limit reached' },
  };
  t.equal(opencode.classify(feed([said])).cls, 'unknown', 'what the model said is no class');
  t.equal(opencode.classify(feed([apiError({ message: 'x', statusCode: 429 })])).cls, 'transient_overload');
  t.equal(opencode.classify(feed([apiError({ message: 'x', statusCode: 503 })])).cls, 'transient_overload');
  const body = (type: string) => JSON.stringify({ type: 'error', error: { type, message: 'm' } });
  t.equal(
    opencode.classify(feed([apiError({ message: 'm', responseBody: body('overloaded_error') })])).cls,
    'transient_overload',
  );
  t.equal(
    opencode.classify(feed([{ type: 'error', error: { name: 'ProviderAuthError', data: { message: 'no key' } } }])).cls,
    'fatal_auth',
  );
  const spent = opencode.classify(
    feed([
      apiError({
        message: 'limit',
        statusCode: 429,
        responseHeaders: {
          'anthropic-ratelimit-unified-status': 'rejected',
          'anthropic-ratelimit-unified-reset': '1800000000',
        },
      }),
    ]),
  );
  t.same(spent, { cls: 'usage_limit', reason: 'limit (429)', resetAt: '2027-01-15T08:00:00.000Z' });
});

t.test('opencode argv and per-run config: first turn, resume, model, ask, MCP', async (t) => {
  const spec = { name: 'opencode', adapter: 'opencode' as const, command: ['opencode'] };
  t.same(opencode.argv(spec, { prompt: 'Do  "this" -x\nnow', sessionId: null, mode: 'work' }), [
    'opencode',
    'run',
    '--format',
    'json',
    '--title',
    '--',
    'Do',
    '',
    '"this"',
    '-x\nnow',
  ]);
  t.same(opencode.argv(spec, { prompt: 'P', sessionId: 'ses_1', mode: 'work', model: 'mock/m' }).slice(2), [
    '--format',
    'json',
    '--model',
    'mock/m',
    '--session',
    'ses_1',
    '--',
    'P',
  ]);
  t.ok(
    opencode
      .argv({ ...spec, permissionMode: 'auto' }, { prompt: 'P', sessionId: null, mode: 'work' })
      .includes('--auto'),
  );
  t.notOk(
    opencode
      .argv({ ...spec, permissionMode: 'auto' }, { prompt: 'P', sessionId: null, mode: 'ask' })
      .includes('--auto'),
  );
  t.same(opencodeConfig({ prompt: 'P', sessionId: null, mode: 'work' }), {
    permission: { edit: 'allow', bash: 'ask', external_directory: 'deny' },
    experimental: { continue_loop_on_deny: true },
  });
  t.same(opencodeConfig({ prompt: 'P', sessionId: null, mode: 'work' }, 'auto').permission, {
    edit: 'allow',
    external_directory: 'deny',
  });
  t.same(opencodeConfig({ prompt: 'P', sessionId: null, mode: 'ask' }).permission, {
    edit: 'deny',
    bash: 'deny',
    external_directory: 'deny',
  });
  const mcp = { argv: ['node', 'lazy.cjs', 'mcp', '--run', 'r1'], config: '/x/mcp.json', env: { LAZY_X: '1' } };
  const env = opencode.env!({ prompt: 'P', sessionId: null, mode: 'work', mcp }, spec);
  t.same(JSON.parse(env.OPENCODE_CONFIG_CONTENT!).mcp, {
    lazy: { type: 'local', command: mcp.argv, environment: mcp.env, enabled: true, timeout: 86_400_000 },
  });
});

t.test('opencode 1.18.33: the follow view shows readable lines', async (t) => {
  const read = (name: string) => renderLog(opencode, readFileSync(join(DIR, `${name}.stdout`), 'utf8')).trimEnd();
  t.equal(
    read('bash'),
    [
      '$ echo hi && ls',
      '  ✓ hi',
      '$ echo oops >&2; exit 3',
      '  ✗ exit 3: oops',
      'Ran both.',
      '✓ turn ended: done',
    ].join('\n'),
  );
  t.match(read('success-write'), /^▸ write hello\.txt\n {2}✓ Wrote file successfully\.\nCreated hello\.txt\./);
  t.equal(read('auth-401'), '✗ turn failed: invalid x-api-key (401)');
});
