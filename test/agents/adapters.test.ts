import t from 'tap';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../helpers/env.js';
import { claude } from '../../lib/agents/claude.js';
import { codex } from '../../lib/agents/codex.js';
import { command } from '../../lib/agents/command.js';
import { tailSummary, type Adapter, type StreamState } from '../../lib/agents/adapter.js';
import { splitCommand } from '../../lib/agents/split.js';
import { decide, delayFor, DEFAULT_RETRY, type Attempt } from '../../lib/agents/retry.js';
import { parseEnvelope } from '../../lib/agents/envelope.js';

// The adapters against recorded real output (test/fixtures/agents/<cli>-<version>/).

const FIX = join(ROOT, 'test', 'fixtures', 'agents');
const CLAUDE = join(FIX, 'claude-2.1.197');
const CODEX = join(FIX, 'codex-0.171.0');

function replay(adapter: Adapter, dir: string, name: string) {
  const stdout = readFileSync(join(dir, `${name}.stdout`), 'utf8');
  const stderr = readFileSync(join(dir, `${name}.stderr`), 'utf8');
  const meta = JSON.parse(readFileSync(join(dir, `${name}.meta.json`), 'utf8'));
  const state: StreamState = {};
  const kinds = stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => adapter.parseLine(l, state));
  const failure = {
    exitCode: meta.exit_code ?? null,
    signal: meta.signal ?? null,
    state,
    tail: `${stdout}\n${stderr}`,
  };
  return { state, kinds, failure, meta, stdout };
}

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
  t.ok(ok.state.usage);
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

t.test('splitting a command line like a shell, without a shell', async (t) => {
  t.same(splitCommand(`node "/path with spaces/a.mjs" --x='a b' plain\\ word "q\\"uote" ''`), [
    'node',
    '/path with spaces/a.mjs',
    '--x=a b',
    'plain word',
    'q"uote',
    '',
  ]);
  t.same(
    splitCommand('echo $HOME `id` ; rm -rf / | cat'),
    ['echo', '$HOME', '`id`', ';', 'rm', '-rf', '/', '|', 'cat'],
    'no expansion, no operators',
  );
  t.throws(() => splitCommand('"unterminated'), /unterminated double quote/);
  t.throws(() => splitCommand('   '), /empty/);
});

t.test('retry pacing: 5, 10, 20, 40, then every 60 s', async (t) => {
  t.same(
    [0, 1, 2, 3, 4, 5, 9].map((n) => delayFor(n, 5000)),
    [5000, 10000, 20000, 40000, 60000, 60000, 60000],
  );
  const h = (cls: Attempt['cls'], n: number, ms = 100): Attempt[] =>
    Array.from({ length: n }, () => ({ cls, durationMs: ms }));
  t.same(decide(h('transient_overload', 1)), { action: 'retry', delayMs: 5000 });
  t.same(decide(h('transient_network', 5)), { action: 'retry', delayMs: 60000 });
  t.equal(decide(h('transient_overload', 2)).action, 'retry', 'the crash-loop detector does not apply to transients');
  t.match(
    decide(h('transient_unreachable', DEFAULT_RETRY.unreachableMax)),
    { action: 'stop', outcome: 'failed' },
    'unreachable gives up after a bounded number',
  );
  t.equal(decide(h('transient_unreachable', DEFAULT_RETRY.unreachableMax - 1)).action, 'retry');
  t.match(decide(h('fatal_auth', 1)), { action: 'stop', outcome: 'failed' });
  t.match(decide(h('unknown', 3, 500)), { action: 'stop', outcome: 'interrupted', why: /crash loop/ });
  t.match(decide(h('unknown', 3, 20_000)), { action: 'stop', outcome: 'interrupted', why: /3 unrecognised failures/ });
  t.equal(decide(h('unknown', 2)).action, 'retry');
});

t.test('result envelope validation', async (t) => {
  t.equal(parseEnvelope('{"status":"completed","summary":"ok"}').kind, 'ok');
  t.equal(
    parseEnvelope('{"status":"decision_required","summary":"?"}').kind,
    'malformed',
    'a decision needs its question',
  );
  t.equal(parseEnvelope('{"status":"completed","summary":"ok","extra":1}').kind, 'malformed');
  t.equal(parseEnvelope('not json').kind, 'malformed');
  t.equal(
    parseEnvelope('{"status":"completed","summary":"ok","commands":[{"command":"make","exit_code":"0"}]}').kind,
    'malformed',
  );
});
