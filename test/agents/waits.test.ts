import t from 'tap';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { claude } from '../../lib/agents/claude.js';
import { codex, codexReset } from '../../lib/agents/codex.js';
import { command } from '../../lib/agents/command.js';
import type { Adapter, FailureInput, StreamState } from '../../lib/agents/adapter.js';
import { DEFAULT_RETRY, usageWait } from '../../lib/agents/retry.js';
import { agentSandbox, eventually, runDirOf } from '../helpers/agent.js';

// Issue 9, failure classes: a class comes from the agent's structured signals (claude's
// result and error fields, codex's error events, a command agent's documented final
// line), never from prose in its output; a spent usage window waits for its reset.

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

t.test('usage waits: the named reset, a recheck, or a block when far away', async (t) => {
  const now = Date.parse('2026-12-01T10:00:00Z');
  t.same(usageWait('2026-12-01T12:00:00Z', now), {
    action: 'wait',
    untilMs: Date.parse('2026-12-01T12:00:00Z'),
    named: true,
  });
  t.same(usageWait(undefined, now), { action: 'wait', untilMs: now + DEFAULT_RETRY.usageRecheckMs, named: false });
  t.same(
    usageWait('2026-12-01T09:00:00Z', now),
    { action: 'wait', untilMs: now + DEFAULT_RETRY.baseMs, named: true },
    'a reset already past cannot spin',
  );
  t.match(usageWait('2026-12-19T00:00:00Z', now), {
    action: 'stop',
    outcome: 'failed',
    why: /resets at 2026-12-19T00:00:00Z, more than 360 min away/,
  });
});

for (const adapter of ['command', 'claude'] as const) {
  t.test(`${adapter}: a failure whose output only looks like auth is retried, not blocked`, async (t) => {
    const { sb, l, invocations, scenario } = await agentSandbox({ adapter });
    t.teardown(sb.cleanup);
    scenario('noisy-fail,succeed');
    const id = await l.create('invoice tests', '--accept', 'done');
    await l('start', id);
    const w = await l.json('wait', id, '--timeout', '60');
    t.equal(w.value.attention?.kind, 'review', JSON.stringify(w.value.attention));
    t.equal(invocations().length, 2, 'retried once, then succeeded');
    t.notOk(
      w.value.changelog.some((c: any) => c.trigger === 'turn_failed'),
      'never blocked as a failure',
    );
  });
}

const waitingOf = async (l: any, id: string) => (await l.json('show', id)).value.waiting;

for (const adapter of ['command', 'claude'] as const) {
  t.test(`${adapter}: a usage limit waits for its reset, says so in show and list, and costs no retry`, async (t) => {
    // retry_transient_max 2: were usage limits counted as transient failures, the third would fail the turn.
    const { sb, l, invocations, scenario } = await agentSandbox({ adapter, settings: { retry_transient_max: '2' } });
    t.teardown(sb.cleanup);
    scenario('usage-limit-15000,usage-limit-100,usage-limit-100,succeed');
    const id = await l.create('quota', '--accept', 'done');
    const s = await l.json('start', id);
    const w = await eventually(() => waitingOf(l, id), 20_000, 'the wait');
    t.equal(w.kind, 'usage_limit');
    t.equal(w.run, s.value.run.id);
    t.equal(w.reset_named, true);
    t.ok(Date.parse(w.until) > Date.now(), 'the reset is still ahead');
    t.match(w.reason, /hit your limit/);
    const shown = await l('show', id);
    t.match(shown.stdout, /^waiting: {3}for the agent's usage limit to reset: retries at \d{4}-\d\d-\d\d \d\d:\d\d/m);
    const listed = await l('list');
    t.match(listed.stdout, new RegExp(`${id}\\s+working \\(usage limit: resets \\d{4}-`));
    const row = (await l.json('list')).value.find((r: any) => r.id === id);
    t.same(row.waiting, w, 'list --json carries the wait');
    t.equal(invocations().length, 1, 'nothing is retried before the reset');
    const done = await l.json('wait', id, '--timeout', '60');
    t.equal(done.value.attention?.kind, 'review');
    t.equal(invocations().length, 4);
    t.ok(invocations()[1]!.n && Date.parse(w.until) <= Date.now(), 'retried after the reset');
    t.same(
      done.value.changelog.map((c: any) => c.trigger),
      ['create', 'start', 'turn_complete'],
      'one turn, no failure',
    );
    t.equal(done.value.turns.at(-1).details.attempts, 4);
    t.equal((await l.json('show', id)).value.waiting, null, 'no wait once the turn ended');
    t.notOk((await l.json('list', '--all')).value.find((r: any) => r.id === id).waiting);
    const log = readFileSync(join(runDirOf(sb, s.value.run.id), 'output.log'), 'utf8');
    t.match(log, /attempt 1: usage limit \(.*\); waiting until \S+, when it resets; no retry is consumed/);
  });
}

t.test('stop during a usage-limit wait interrupts the turn at once, and the wait is gone', async (t) => {
  const { sb, l, invocations, scenario } = await agentSandbox();
  t.teardown(sb.cleanup);
  scenario('usage-limit-600000,succeed');
  const id = await l.create('long wait', '--accept', 'done');
  await l('start', id);
  await eventually(() => waitingOf(l, id), 20_000, 'the wait');
  const started = Date.now();
  const s = await l.json('stop', id);
  t.equal(s.run.code, 0);
  t.ok(Date.now() - started < 10_000, 'stopped without waiting out the reset');
  const v = (await l.json('show', id)).value;
  t.equal(v.status, 'interrupted');
  t.equal(v.attention.reason, 'stopped by the user');
  t.equal(v.waiting, null);
  t.notOk(existsSync(join(sb.dir, '.git', 'lazy', 'waits', `${id}.json`)), 'the wait record is removed');
  t.equal(invocations().length, 1);
});

t.test(
  'a supervisor SIGKILLed during a usage-limit wait: the next command records the crash and drops the wait record',
  async (t) => {
    const { sb, l, scenario } = await agentSandbox();
    t.teardown(sb.cleanup);
    scenario('usage-limit-600000,succeed');
    const id = await l.create('killed while waiting', '--accept', 'done');
    const runId = (await l.json('start', id)).value.run.id;
    await eventually(() => waitingOf(l, id), 20_000, 'the wait');
    const rec = JSON.parse(readFileSync(join(runDirOf(sb, runId), 'run.json'), 'utf8'));
    process.kill(rec.supervisor.pid, 'SIGKILL');
    const record = join(sb.dir, '.git', 'lazy', 'waits', `${id}.json`);
    t.ok(existsSync(record), 'the killed supervisor left its record');
    const v = await eventually(
      async () => {
        const x = (await l.json('show', id)).value;
        return x.changelog.some((c: any) => c.trigger === 'turn_crashed') ? x : undefined;
      },
      20_000,
      'the crash recorded',
    );
    t.notOk(existsSync(record), "reconcile removed the dead run's wait record");
    t.equal(v.waiting, null);
    await l('wait', id, '--timeout', '60');
  },
);

t.test('a usage limit without a reset time rechecks after usage_limit_recheck_ms', async (t) => {
  const { sb, l, invocations, scenario } = await agentSandbox({ settings: { usage_limit_recheck_ms: '12000' } });
  t.teardown(sb.cleanup);
  scenario('usage-limit-none,succeed');
  const id = await l.create('no reset', '--accept', 'done');
  await l('start', id);
  const w = await eventually(() => waitingOf(l, id), 20_000, 'the wait');
  t.equal(w.reset_named, false);
  t.match((await l('show', id)).stdout, /\(no reset time named: a recheck\)/);
  t.match((await l('list')).stdout, /working \(usage limit: rechecks /);
  const done = await l.json('wait', id, '--timeout', '60');
  t.equal(done.value.attention?.kind, 'review');
  t.equal(invocations().length, 2);
});

t.test('a usage limit that resets far away blocks with failure attention instead of waiting', async (t) => {
  const { sb, l, invocations, scenario } = await agentSandbox();
  t.teardown(sb.cleanup);
  scenario(`usage-limit-${8 * 3_600_000},succeed`);
  const id = await l.create('monthly cap', '--accept', 'done');
  await l('start', id);
  const w = await l.json('wait', id, '--timeout', '30');
  t.equal(w.value.status, 'blocked');
  t.equal(w.value.attention.kind, 'failure');
  t.match(
    w.value.attention.reason,
    /^usage_limit: You've hit your limit \(it resets at \S+, more than 360 min away \(usage_limit_max_wait_ms\): not waited on\)/,
  );
  t.equal(w.value.changelog.at(-1).details.failure_class, 'usage_limit');
  await l('list');
  t.equal(invocations().length, 1, 'not retried, not resumed');
  t.equal(
    (await l.json('inbox')).value.some((i: any) => i.id === id),
    true,
    'in the inbox',
  );
});
