import t from 'tap';
import { replay } from '../helpers/replay.js';
import { mkdtempSync, mkdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../helpers/env.js';
import { gemini, apiStatusOf, quotaOf } from '../../lib/agents/adapters/gemini/index.js';
import { geminiHome, runSettings } from '../../lib/agents/adapters/gemini/home.js';
import { renderLog } from '../../lib/output/stream.js';
import type { McpServer } from '../../lib/agents/adapters/adapter.js';

// The gemini adapter against recorded real output of @google/gemini-cli 0.61.0
// (test/fixtures/agents/gemini-0.61.0/): session, result, usage, live lines, commands run, and
// failure classes from the result line's API error and gemini's exit code, never from prose.

const DIR = join(ROOT, 'test', 'fixtures', 'agents', 'gemini-0.61.0');

const replayed = (name: string) => replay(gemini, DIR, name);

t.test('gemini 0.61.0: session, result and usage from the stream', async (t) => {
  const w = replayed('success-write');
  t.equal(w.state.sessionId, JSON.parse(w.stdout.split('\n')[0]!).session_id, 'the init line names the session');
  t.equal(w.state.isError, false);
  t.equal(gemini.resultText(w.state, ''), 'Wrote hello.txt.');
  t.strictSame(w.state.usage, {
    input_tokens: 240,
    output_tokens: 18,
    cache_read_input_tokens: 0,
    cache_creation_input_tokens: 0,
  });
  t.equal(w.state.costUsd, undefined, 'gemini reports no cost');
  const auto = replayed('success-auto-model');
  t.equal(auto.state.usage?.input_tokens, 360, "the router's tokens count: stats sum every model of the run");
  t.equal(replayed('resume-success').state.result, 'Hello there.');
  t.ok(
    w.kinds.every((k) => k === 'progress'),
    'every line is progress',
  );
});

t.test('gemini 0.61.0: live lines and the commands run', async (t) => {
  const shown = renderLog(gemini, readFileSync(join(DIR, 'success-write.stdout'), 'utf8'));
  t.match(shown, /^· gemini session [0-9a-f-]{36} \(gemini-2\.5-pro\)$/m);
  t.match(shown, /^▸ write_file hello\.txt$/m);
  t.match(shown, /^Wrote hello\.txt\.$/m);
  t.match(shown, /^✓ turn ended: 1 tool call, 240 in \/ 18 out tokens$/m);
  t.notMatch(shown, /do it/, "the user's own prompt is not echoed");
  const yolo = renderLog(gemini, readFileSync(join(DIR, 'shell-yolo.stdout'), 'utf8'));
  t.match(yolo, /^\$ ls nope$/m);
  t.match(yolo, /^ {2}✓ ls: cannot access 'nope': No such file or directory$/m);
  const denied = renderLog(gemini, readFileSync(join(DIR, 'shell-auto-edit.stdout'), 'utf8'));
  t.match(denied, /^ {2}✗ failed: Tool "run_shell_command" not found/m, 'auto_edit offers no shell tool');
  const failed = renderLog(gemini, readFileSync(join(DIR, 'shell-fail-yolo.stdout'), 'utf8'));
  t.match(failed, /^ {2}✗ exit 1$/m);
  t.strictSame(replayed('shell-fail-yolo').state.commands, [{ command: 'false', exit_code: 1 }]);
  t.equal(replayed('shell-yolo').state.commands, undefined, 'a command whose exit code the stream does not state');
  t.equal(replayed('shell-auto-edit').state.commands, undefined, 'a call that ran nothing');
  const planned = renderLog(gemini, readFileSync(join(DIR, 'plan-write-denied.stdout'), 'utf8'));
  t.match(
    planned,
    /^ {2}✗ failed: Tool execution denied by policy\. You are in Plan Mode/m,
    'an ask turn (plan) writes nothing',
  );
  const errored = renderLog(gemini, readFileSync(join(DIR, 'invalid-api-key.stdout'), 'utf8'));
  t.match(errored, /^✗ turn failed: \[API Error: \{"error":\{"code":401/m);
});

t.test('gemini 0.61.0: failure classes', async (t) => {
  const cases: [string, string][] = [
    ['invalid-api-key', 'fatal_auth'],
    ['permission-denied', 'fatal_auth'],
    ['rate-limited', 'transient_overload'],
    ['overloaded', 'transient_overload'],
    ['daily-quota', 'usage_limit'],
  ];
  for (const [name, cls] of cases) {
    const r = replayed(name);
    t.equal(r.state.isError, true, `${name}: the result line says error`);
    t.equal(gemini.classify(r.failure).cls, cls, `${name} → ${cls}`);
  }
  t.equal(replayed('invalid-api-key').state.apiStatus, 401, "the API's own error object, carried in the message");
  t.equal(replayed('overloaded').state.apiStatus, undefined, 'a message without it…');
  t.equal(replayed('overloaded').failure.exitCode, 247, '…and the exit code is the status mod 256 (503)');
  t.match(gemini.classify(replayed('invalid-api-key').failure).reason, /API key not valid/);
  t.equal(gemini.classify(replayed('daily-quota').failure).resetAt, undefined, 'a daily quota names no reset');
  t.ok(
    gemini.sessionMissing(replayed('resume-unknown-session').failure),
    'an unknown --resume id is a missing session',
  );
  t.notOk(gemini.sessionMissing(replayed('overloaded').failure));
  const unknown = gemini.classify({ exitCode: 1, signal: null, state: {}, tail: 'tests printed 401 Unauthorized' });
  t.equal(unknown.cls, 'unknown', 'prose in the output makes no class');
  t.equal(gemini.classify({ exitCode: 41, signal: null, state: {}, tail: '' }).cls, 'fatal_auth', "gemini's exit 41");
  t.equal(
    gemini.classify({ exitCode: 145, signal: null, state: {}, tail: '' }).cls,
    'unknown',
    'an exit code alone, without an error result, is not a status',
  );
});

t.test('gemini: API status and quota parsing', async (t) => {
  t.equal(apiStatusOf('[API Error: Quota exceeded (Status: RESOURCE_EXHAUSTED)]\nPlease wait'), 429);
  t.equal(apiStatusOf('[API Error: {"error":{"code":503,"message":"x","status":"UNAVAILABLE"}}]'), 503);
  t.equal(apiStatusOf('Error 401 somewhere'), undefined);
  const at = Date.parse('2026-01-01T00:00:00Z');
  t.same(quotaOf('[API Error: Limit hit\nSuggested retry after 3600s.]\nPlease wait', at), {
    resetAt: '2026-01-01T01:00:00.000Z',
  });
  t.same(quotaOf('[API Error: You have exhausted your daily quota on this model.]', at), {});
  t.equal(
    quotaOf('[API Error: Resource has been exhausted (e.g. check quota).]', at),
    undefined,
    'a plain 429 is an overload',
  );
});

t.test('gemini argv: first turn, model, resume, permission mode, ask', async (t) => {
  const spec = { name: 'gemini', adapter: 'gemini' as const, command: ['gemini'] };
  t.same(gemini.argv(spec, { prompt: 'P', sessionId: null, mode: 'work' }), [
    'gemini',
    '-p',
    'P',
    '--output-format',
    'stream-json',
    '--skip-trust',
    '--approval-mode',
    'auto_edit',
  ]);
  t.same(
    gemini
      .argv(
        { ...spec, permissionMode: 'yolo' },
        { prompt: 'P', sessionId: 's1', mode: 'work', model: 'gemini-2.5-pro' },
      )
      .slice(-6),
    ['--approval-mode', 'yolo', '-m', 'gemini-2.5-pro', '--resume', 's1'],
  );
  t.same(
    gemini.argv(spec, { prompt: 'Q', sessionId: 's1', mode: 'ask' }).slice(-4),
    ['--approval-mode', 'plan', '--resume', 's1'],
    'ask is read-only',
  );
  t.same(
    gemini.env!({ prompt: 'P', sessionId: null, mode: 'work' }, spec),
    {},
    "without lazy's server, the user's own home",
  );
});

const server: McpServer = {
  argv: ['/usr/bin/node', '/lazy/cli.cjs', '-C', '/repo', 'mcp', '--run', 'r1'],
  config: '/x/mcp.json',
  env: { GIT_AUTHOR_NAME: 'Ada' },
};

t.test("gemini's run home: the user's settings with lazy's server, the user's files untouched", async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'lazy-gemini-home-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const home = join(root, 'home');
  mkdirSync(join(home, '.gemini'), { recursive: true });
  const mine = JSON.stringify({
    mcpServers: { other: { command: 'x' } },
    security: { auth: { selectedType: 'oauth-personal' } },
  });
  writeFileSync(join(home, '.gemini', 'settings.json'), mine);
  writeFileSync(join(home, '.gemini', 'oauth_creds.json'), '{}');
  const dir = geminiHome(join(root, 'run'), server, { HOME: home, GEMINI_API_KEY: 'k' });
  t.equal(dir, join(root, 'run'));
  const s = JSON.parse(readFileSync(join(dir!, '.gemini', 'settings.json'), 'utf8'));
  t.same(Object.keys(s.mcpServers), ['other', 'lazy'], "the user's servers stay, lazy's is added");
  t.same(s.mcpServers.lazy, {
    command: '/usr/bin/node',
    args: server.argv.slice(1),
    env: server.env,
    trust: true,
    timeout: 86_400_000,
  });
  t.equal(s.security.auth.selectedType, 'oauth-personal', "the user's auth type wins");
  t.equal(readlinkSync(join(dir!, '.gemini', 'oauth_creds.json')), join(home, '.gemini', 'oauth_creds.json'));
  t.equal(readlinkSync(join(dir!, '.gemini', 'tmp')), join(home, '.gemini', 'tmp'), 'sessions are shared across runs');
  t.equal(readFileSync(join(home, '.gemini', 'settings.json'), 'utf8'), mine, "the user's settings are unchanged");
  t.equal(geminiHome(join(root, 'run'), server, { HOME: home }), dir, 'a second attempt of the run builds it again');
  writeFileSync(join(home, '.gemini', 'settings.json'), '{ // a comment\n}');
  t.equal(
    geminiHome(join(root, 'run2'), server, { HOME: home }),
    undefined,
    "settings it cannot read: the user's home as it is",
  );
  t.same(runSettings({}, undefined, { GEMINI_API_KEY: 'k' }), {
    security: { auth: { selectedType: 'gemini-api-key' } },
  });
  t.same(
    runSettings({}, undefined, { GEMINI_API_KEY: 'k', GOOGLE_GENAI_USE_VERTEXAI: 'true' }),
    {},
    "Vertex is the environment's choice",
  );
});
