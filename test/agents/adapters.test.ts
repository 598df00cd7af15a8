import t from 'tap';
import { replay } from '../helpers/replay.js';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../helpers/env.js';
import { claude } from '../../lib/agents/adapters/claude.js';
import { codex, codexReset } from '../../lib/agents/adapters/codex.js';
import { command } from '../../lib/agents/adapters/command.js';
import { tailSummary, type Adapter, type FailureInput, type StreamState } from '../../lib/agents/adapters/adapter.js';

// The adapters against recorded real output (test/fixtures/agents/<cli>-<version>/), and
// issue 9's failure classes: a class comes from the agent's structured signals (claude's
// result and error fields, codex's error events, a command agent's documented final
// line), never from prose in its output.

const FIX = join(ROOT, 'test', 'fixtures', 'agents');

const CLAUDE = join(FIX, 'claude-2.1.197');

const CODEX = join(FIX, 'codex-0.171.0');

t.test('claude 2.1.197: session, result and usage from the stream', async (t) => {
  const ok = replay(claude, CLAUDE, 'success-text');
  const init = JSON.parse(ok.stdout.split('\n')[0]!);
  t.equal(ok.state.sessionId, init.session_id, 'the system/init line carries session_id');
  t.equal(ok.state.isError, false);
  t.equal(claude.resultText(ok.state, ''), 'Hello! This is the fake model answering.');
  t.ok(ok.state.usage && typeof ok.state.usage.input_tokens === 'number', 'usage from the result line');
  t.equal(ok.state.costUsd, 0.0005600000000000001);
  const resumed = replay(claude, CLAUDE, 'resume-success');
  t.equal(resumed.state.result, 'Second-turn answer: I remember the first turn.');
  t.equal(replay(claude, CLAUDE, 'success-write').state.result, 'Created hello.txt.');
});

t.test('claude 2.1.197: failure classes', async (t) => {
  const cases: [string, string][] = [
    ['not-logged-in', 'fatal_auth'],
    ['invalid-api-key', 'fatal_auth'],
    ['overloaded', 'transient_overload'],
    ['rate-limited-exhausted', 'transient_overload'],
    ['api-retry-exhausted', 'transient_unreachable'],
    ['api-timeout', 'transient_network'],
  ];
  for (const [name, cls] of cases) {
    const r = replay(claude, CLAUDE, name);
    t.equal(r.state.isError, true, `${name}: is_error, although subtype is success`);
    t.equal(claude.classify(r.failure).cls, cls, `${name} → ${cls}`);
  }
  t.equal(claude.classify(replay(claude, CLAUDE, 'not-logged-in').failure).reason, 'Not logged in · Please run /login');
  const retrying = replay(claude, CLAUDE, 'api-retry');
  t.ok(
    retrying.kinds.filter((k) => k === 'retry').length >= 3,
    'system/api_retry lines are retries in progress, not progress',
  );
  t.match(retrying.state.retry?.message, /API retry \d+\/10/);
  const limited = replay(claude, CLAUDE, 'rate-limited');
  t.match(limited.state.retry?.message, /rate_limit \(429\)/);
  t.equal(
    claude.classify(limited.failure).cls,
    'transient_overload',
    'a run killed mid-retry classifies by its retries',
  );
  t.ok(
    claude.sessionMissing(replay(claude, CLAUDE, 'resume-unknown-session').failure),
    'an unknown --resume id is a missing session',
  );
  t.notOk(claude.sessionMissing(replay(claude, CLAUDE, 'overloaded').failure));
});

t.test('claude argv: first turn, resume, permission mode, ask', async (t) => {
  const spec = { name: 'claude', adapter: 'claude' as const, command: ['claude'] };
  t.same(claude.argv(spec, { prompt: 'P', sessionId: null, mode: 'work' }), [
    'claude',
    '-p',
    'P',
    '--output-format',
    'stream-json',
    '--verbose',
    '--permission-mode',
    'acceptEdits',
  ]);
  t.same(
    claude
      .argv({ ...spec, permissionMode: 'bypassPermissions' }, { prompt: 'P', sessionId: 's1', mode: 'work' })
      .slice(-4),
    ['--permission-mode', 'bypassPermissions', '--resume', 's1'],
  );
  t.same(
    claude.argv(spec, { prompt: 'Q', sessionId: 's1', mode: 'ask' }).slice(-4),
    ['--permission-mode', 'plan', '--resume', 's1'],
    'ask is read-only',
  );
});

t.test('codex 0.171.0: thread id, answer, usage, failures', async (t) => {
  const ok = replay(codex, CODEX, 'success-text');
  const started = JSON.parse(ok.stdout.split('\n')[0]!);
  t.equal(ok.state.sessionId, started.thread_id, 'thread.started carries the session id');
  t.type(ok.state.result, 'string');
  t.equal(ok.state.isError, false);
  t.strictSame(
    ok.state.usageCumulative,
    { input_tokens: 100, output_tokens: 10, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
    "usage: the thread's so far (codex reports it cumulatively)",
  );
  const resumed = replay(codex, CODEX, 'resume-success');
  const resumeArgv: string[] = resumed.meta.argv;
  t.equal(
    resumed.state.sessionId,
    resumeArgv.find((a) => /^[0-9a-f-]{36}$/.test(a)),
    'resume keeps the thread id it was given',
  );
  const cases: [string, string][] = [
    ['invalid-api-key', 'fatal_auth'],
    ['quota-exceeded', 'fatal_auth'],
    ['rate-limited', 'transient_overload'],
    ['overloaded', 'transient_overload'],
    ['unreachable', 'transient_unreachable'],
    ['no-credentials', 'transient_network'],
    ['not-git-repo', 'fatal_config'],
  ];
  for (const [name, cls] of cases)
    t.equal(codex.classify(replay(codex, CODEX, name).failure).cls, cls, `${name} → ${cls}`);
  t.ok(replay(codex, CODEX, 'unreachable').kinds.includes('retry'), '"Reconnecting..." errors are retries');
  t.ok(codex.sessionMissing(replay(codex, CODEX, 'resume-unknown-session').failure));
  const spec = { name: 'codex', adapter: 'codex' as const, command: ['codex'] };
  t.same(codex.argv(spec, { prompt: 'P', sessionId: null, mode: 'work' }), [
    'codex',
    'exec',
    '--json',
    '-c',
    'sandbox_mode="workspace-write"',
    '--',
    'P',
  ]);
  t.same(codex.argv(spec, { prompt: 'P', sessionId: 'T', mode: 'work' }), [
    'codex',
    'exec',
    'resume',
    '--json',
    '-c',
    'sandbox_mode="workspace-write"',
    '--',
    'T',
    'P',
  ]);
});

t.test('every recorded fixture parses without throwing', async (t) => {
  for (const [adapter, dir] of [
    [claude, CLAUDE],
    [codex, CODEX],
  ] as const) {
    for (const f of readdirSync(dir).filter((n) => n.endsWith('.stdout'))) {
      const r = replay(adapter, dir, f.replace(/\.stdout$/, ''));
      t.ok(adapter.classify(r.failure).cls, `${f} classifies`);
    }
  }
});

t.test('command adapter: prompt last, summary from the output tail', async (t) => {
  t.same(
    command.argv(
      { name: 'x', adapter: 'command', command: ['my-agent', '--fast'] },
      { prompt: 'do it', sessionId: null, mode: 'work' },
    ),
    ['my-agent', '--fast', 'do it'],
  );
  t.equal(
    command.classify({ exitCode: 1, signal: null, state: {}, tail: 'HTTP 429 Too Many Requests' }).cls,
    'unknown',
    'prose is never a class',
  );
  t.equal(
    command.classify({ exitCode: 1, signal: null, state: {}, tail: 'lazy-error: rate-limit: HTTP 429' }).cls,
    'transient_overload',
    'the documented final line is',
  );
  t.equal(
    command.classify({ exitCode: 1, signal: null, state: {}, tail: 'segfault' }).cls,
    'unknown',
    'unrecognised failures are unknown, never a guess',
  );
  const long = Array.from({ length: 2000 }, (_, i) => `line ${i}`).join('\n');
  const s = tailSummary(long);
  t.ok(Buffer.byteLength(s) <= 4096 + 60);
  t.match(s, /^\[… \d+ earlier bytes of output omitted\]\nline \d+\n/, 'cut at a line boundary and marked');
  t.match(s, /line 1999$/);
  t.equal(tailSummary('short'), 'short');
});

const NOISE = [
  'Running tests in src/billing/invoice.test.ts',
  '  ✓ returns 401 Unauthorized without a token (invalid api key, not logged in)',
  '  ✓ retries on 429 Too Many Requests (rate limit); quota exceeded; billing; usage limit',
  'Not inside a trusted directory and --skip-git-repo-check was not specified.',
  'connection refused by the billing mock',
].join('\n');

function feed(adapter: Adapter, lines: object[], tail = NOISE, exitCode = 1): FailureInput {
  const state: StreamState = {};
  for (const l of lines) adapter.parseLine(JSON.stringify(l), state);
  return { exitCode, signal: null, state, tail: `${lines.map((l) => JSON.stringify(l)).join('\n')}\n${tail}` };
}

t.test('prose in the output never makes a class, for any adapter', async (t) => {
  t.equal(command.classify({ exitCode: 1, signal: null, state: {}, tail: NOISE }).cls, 'unknown');
  t.match(
    command.classify({ exitCode: 1, signal: null, state: {}, tail: NOISE }).reason,
    /^exit 1: connection refused by the billing mock$/,
  );
  // claude: an agent whose own answer is the noise, and a failed result carrying it.
  const said = { type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: NOISE }] } };
  t.equal(
    claude.classify(feed(claude, [said, { type: 'result', subtype: 'success', is_error: true, result: NOISE }])).cls,
    'unknown',
  );
  t.equal(
    claude.classify(feed(claude, [said, { type: 'result', subtype: 'error_max_turns', is_error: true }])).cls,
    'unknown',
  );
  // codex: the noise as the agent's message, and on stderr after its thread started.
  const msg = { type: 'item.completed', item: { type: 'agent_message', text: NOISE } };
  t.equal(codex.classify(feed(codex, [{ type: 'thread.started', thread_id: 'T' }, msg])).cls, 'unknown');
});

t.test('claude: structured fields decide', async (t) => {
  const result = (o: object) => ({ type: 'result', subtype: 'success', is_error: true, result: 'x', ...o });
  const err = (error: string, text = 'x') => ({
    type: 'assistant',
    message: { content: [{ type: 'text', text }] },
    error,
  });
  t.equal(claude.classify(feed(claude, [result({ api_error_status: 401 })])).cls, 'fatal_auth');
  t.equal(claude.classify(feed(claude, [err('authentication_failed'), result({})])).cls, 'fatal_auth');
  t.equal(claude.classify(feed(claude, [err('billing_error'), result({})])).cls, 'fatal_auth');
  t.equal(claude.classify(feed(claude, [err('rate_limit'), result({})])).cls, 'transient_overload');
  t.equal(claude.classify(feed(claude, [result({ api_error_status: 503 })])).cls, 'transient_overload');
  t.equal(
    claude.classify(
      feed(claude, [
        err('server_error', 'API Error: Unable to connect to API (ConnectionRefused)'),
        result({ result: 'API Error: Unable to connect to API (ConnectionRefused)' }),
      ]),
    ).cls,
    'transient_unreachable',
  );
  t.equal(
    claude.classify(feed(claude, [err('invalid_request'), result({})])).cls,
    'unknown',
    'an unlisted error type is ambiguous',
  );
  const reset = Math.ceil(Date.now() / 1000) + 3600;
  const spent = claude.classify(
    feed(claude, [
      {
        type: 'rate_limit_event',
        rate_limit_info: { status: 'rejected', resetsAt: reset, rateLimitType: 'five_hour' },
      },
      err('rate_limit'),
      result({ result: "You've hit your limit · resets 3pm" }),
    ]),
  );
  t.same(spent, {
    cls: 'usage_limit',
    reason: "You've hit your limit · resets 3pm",
    resetAt: new Date(reset * 1000).toISOString(),
  });
  const allowed = claude.classify(
    feed(claude, [
      { type: 'rate_limit_event', rate_limit_info: { status: 'allowed', resetsAt: reset } },
      err('rate_limit'),
      result({}),
    ]),
  );
  t.equal(allowed.cls, 'transient_overload', 'a window still open is a plain rate limit');
  const legacy = claude.classify(feed(claude, [result({ result: `Claude AI usage limit reached|${reset}` })]));
  t.same([legacy.cls, legacy.resetAt], ['usage_limit', new Date(reset * 1000).toISOString()]);
  t.equal(
    claude.classify(feed(claude, [result({ result: `I read "Claude AI usage limit reached|${reset}" in the docs` })]))
      .cls,
    'unknown',
  );
});

t.test('codex: error events decide', async (t) => {
  const failed = (message: string) => [
    { type: 'thread.started', thread_id: 'T' },
    { type: 'error', message },
    { type: 'turn.failed', error: { message } },
  ];
  t.equal(codex.classify(feed(codex, failed('unexpected status 403 Forbidden: nope, url: x'))).cls, 'fatal_auth');
  t.equal(
    codex.classify(feed(codex, failed('exceeded retry limit, last status: 502 Bad Gateway'))).cls,
    'transient_overload',
  );
  t.equal(codex.classify(feed(codex, failed('something new went wrong'))).cls, 'unknown');
  const now = Date.parse('2026-12-01T10:00:00Z');
  t.equal(codexReset("You've hit your usage limit. Try again in 2 hours 5 minutes.", now), '2026-12-01T12:05:00.000Z');
  t.equal(codexReset("You've hit your usage limit. Try again in 3 days.", now), '2026-12-04T10:00:00.000Z');
  const at = codexReset("You've hit your usage limit. Upgrade to Pro or try again at Dec 19th, 2026 3:05 PM.", now);
  t.equal(at, new Date(2026, 11, 19, 15, 5).toISOString(), 'a date in local time');
  t.equal(codexReset("You've hit your usage limit. Try again later.", now), undefined);
  const spent = codex.classify(feed(codex, failed("You've hit your usage limit. Try again in 20 minutes.")));
  t.equal(spent.cls, 'usage_limit');
  t.ok(Math.abs(Date.parse(spent.resetAt!) - Date.now() - 20 * 60_000) < 5000, 'reset 20 minutes from now');
  t.equal(
    codex.classify(feed(codex, [], 'Not inside a trusted directory and --skip-git-repo-check was not specified.')).cls,
    'fatal_config',
    'a set-up error before any event',
  );
});

t.test('command agents: only the documented final lines', async (t) => {
  const c = (tail: string) => command.classify({ exitCode: 1, signal: null, state: {}, tail });
  t.same(c('working...\nlazy-error: auth: token revoked\n\n'), { cls: 'fatal_auth', reason: 'token revoked' });
  t.same(c('lazy-error: config: no such model'), { cls: 'fatal_config', reason: 'no such model' });
  t.same(c('lazy-error: rate-limit'), { cls: 'transient_overload', reason: 'rate-limit' });
  t.equal(c('lazy-error: network: reset').cls, 'transient_network');
  t.equal(c('lazy-error: unreachable: proxy down').cls, 'transient_unreachable');
  t.same(c('lazy-error: usage-limit resets=2026-12-01T10:00:00Z: window spent'), {
    cls: 'usage_limit',
    reason: 'window spent',
    resetAt: '2026-12-01T10:00:00.000Z',
  });
  t.same(c('lazy-error: usage-limit'), { cls: 'usage_limit', reason: 'usage-limit' });
  t.equal(c('lazy-error: auth: token revoked\nthen something else').cls, 'unknown', 'only the last line counts');
  t.equal(c('  > lazy-error: auth: quoted').cls, 'unknown', 'the whole line, from its start');
  t.equal(c('  lazy-error: auth: indented in a log').cls, 'unknown', 'not indented');
  t.equal(c('lazy-error: usage-limit resets=tomorrow').cls, 'unknown', 'a reset must be ISO 8601');
  t.equal(c('lazy-error: auth resets=2026-12-01T10:00:00Z').cls, 'unknown', 'resets= belongs to usage-limit only');
  t.equal(c('lazy-error: teapot: 418').cls, 'unknown');
  t.equal(c('LAZY-ERROR: auth: shouting').cls, 'unknown');
});
