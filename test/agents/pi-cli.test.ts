import t, { type Test } from 'tap';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli, gitSync, ROOT, sandbox, type Sandbox } from '../helpers/env.js';
import { fakeAnthropic, toolResults, type ErrorReply, type Reply, type Request } from '../helpers/anthropic.js';

t.jobs = 2;

// The real pi CLI (@mariozechner/pi-coding-agent, pinned), offline, driven by lazy: a custom provider
// in pi's own models.json (its agent dir is the test's, never ~/.pi) speaks the Anthropic Messages API
// to a scripted loopback server, which answers the way a model would, with pi's own tools.

const PI = join(ROOT, 'node_modules', '.bin', 'pi');
const MODEL = 'mock/mock-sonnet';

/** pi's agent dir for one sandbox: the provider `mock` pointed at the fake server. */
function piAgentDir(sb: Sandbox, url: string): string {
  const dir = join(sb.home, '..', 'pi-agent');
  mkdirSync(dir, { recursive: true });
  const model = { id: 'mock-sonnet', name: 'Mock Sonnet', reasoning: false, input: ['text'], contextWindow: 200000 };
  const cost = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };
  const provider = {
    baseUrl: url,
    api: 'anthropic-messages',
    apiKey: 'sk-test-offline',
    models: [{ ...model, cost, maxTokens: 8192 }],
  };
  writeFileSync(join(dir, 'models.json'), JSON.stringify({ providers: { mock: provider } }));
  return dir;
}

async function piBox(t: Test, script: (req: Request, n: number) => Reply | ErrorReply) {
  if (!existsSync(PI)) throw new Error('the pi CLI is not installed (npm ci installs it)');
  const api = await fakeAnthropic(script);
  const sb = sandbox('lazy-pi');
  t.teardown(async () => {
    await sb.cleanup();
    await api.close();
  });
  const agentDir = piAgentDir(sb, api.url);
  const l = cli(sb, { PI_CODING_AGENT_DIR: agentDir });
  for (const [k, v] of [
    // The model as pi expects it, provider/id (agents.pi.model, once lazy has it, passes --model the same way).
    ['agents.pi.command', `${PI} --model ${MODEL}`],
    ['agent', 'pi'],
  ])
    t.equal((await l('config', 'set', k!, v!)).code, 0, `config set ${k}`);
  return { api, sb, l, agentDir };
}

const text = (s: string): Reply => ({ stop: 'end_turn', blocks: [{ type: 'text', text: s }] });
const tool = (name: string, input: unknown, say: string): Reply => ({
  stop: 'tool_use',
  blocks: [
    { type: 'text', text: say },
    { type: 'tool_use', name, input },
  ],
});
/** The path lazy's prompt names for the result envelope. */
const resultPath = (req: Request) =>
  /LAZY_RESULT environment variable \(([^)]+)\)/.exec(JSON.stringify(req.messages[0]))?.[1];

t.test(
  'real pi: writes a file with its own write tool, commits it, and the resumed turn has the conversation',
  async (t) => {
    const { api, sb, l, agentDir } = await piBox(t, (req, n) => {
      if (n === 0) return tool('write', { path: 'hello.txt', content: 'hello from pi\n' }, 'I will create hello.txt.');
      if (n === 1)
        return tool('bash', { command: 'git add hello.txt && git commit -q -m "Add hello.txt"' }, 'Committing.');
      if (n === 2) {
        const envelope = { status: 'completed', summary: 'Created hello.txt and committed it.', risks: ['none known'] };
        return tool('write', { path: resultPath(req), content: JSON.stringify(envelope) }, 'Writing the result.');
      }
      if (n === 3) return text('Done.');
      if (n === 4) return text('I remember: hello.txt is there.');
      if (n === 5) return text('Because it was asked for.');
      return text('?');
    });
    const id = await l.create('create hello.txt', '--accept', 'hello.txt exists');
    const followed = await l('start', id, '--agent', 'pi', '--follow');
    t.equal(followed.code, 0, followed.stderr);
    t.match(followed.stdout, /^▸ write hello\.txt$/m, 'live output in the shared lines');
    t.match(followed.stdout, /^\$ git add hello\.txt && git commit/m, 'a bash call as its command line');
    const done = (await l.json('wait', id, '--timeout', '90')).value.task;
    t.equal(done.status, 'blocked', 'the task parks for review');
    t.equal(done.attention?.kind, 'review');
    t.equal(api.requests.length, 4, 'four model requests in the first turn');
    t.equal(api.requests[0]!.model, 'mock-sonnet', 'pi asked for the configured model');
    t.same(
      api.requests[0]!.tools.map((x) => x.name).sort(),
      ['bash', 'edit', 'read', 'write'],
      "pi's own tools, all of them in a work turn",
    );
    t.notOk(toolResults(api.requests[1]!)[0]?.is_error, `the write ran: ${toolResults(api.requests[1]!)[0]?.content}`);

    const branch = `lazy/${id}`;
    t.equal(
      gitSync(sb.dir, sb.env, ['show', `${branch}:hello.txt`]),
      'hello from pi\n',
      `hello.txt is committed on ${branch}`,
    );
    const turn = done.turns.filter((x: any) => x.role === 'agent').at(-1);
    t.equal(turn.content, 'Created hello.txt and committed it.', 'the review summary came from the envelope');
    t.same(turn.details.risks, ['none known']);
    t.same(
      turn.details.commands,
      [{ command: 'git add hello.txt && git commit -q -m "Add hello.txt"', exit_code: 0 }],
      'the command pi ran, from its stream',
    );
    const session = turn.details.agent_session_id;
    t.match(session, /^[0-9a-f-]{36}$/, 'the session id is recorded');
    t.equal(done.agent_session_id, session);
    t.ok(turn.details.usage.input_tokens > 0 && turn.details.usage.output_tokens > 0, 'usage from pi');
    t.ok(turn.details.usage.cache_read_input_tokens > 0, 'cache reads are counted apart');
    t.ok((await l.json('show', id)).value.usage.cost_usd > 0, 'the cost pi computed');

    // pi's session lives in lazy's own directory of the worktree, never in pi's agent dir.
    const worktree = join(sb.dir, '.lazy', 'worktrees', id);
    const sessions = readdirSync(join(worktree, '.lazy', 'pi-sessions'));
    t.ok(
      sessions.some((f) => f.includes(session)),
      `the session file is under .lazy/pi-sessions: ${sessions}`,
    );
    t.notOk(existsSync(join(agentDir, 'sessions')), "nothing in pi's own sessions dir");
    t.equal(gitSync(worktree, sb.env, ['status', '--porcelain']).trim(), '', 'the session file stays out of git');

    t.equal((await l('unblock', id, '-m', 'Say what you remember.')).code, 0);
    const again = (await l.json('wait', id, '--timeout', '90')).value.task;
    t.equal(again.status, 'blocked');
    const resumed = api.requests[4]!;
    const sent = JSON.stringify(resumed.messages);
    t.ok(
      resumed.messages.length > 5,
      `the resumed request carries the conversation (${resumed.messages.length} messages)`,
    );
    t.match(sent, /Task: create hello\.txt/, 'the first prompt');
    t.match(sent, /Successfully wrote 14 bytes to hello\.txt/, 'the earlier tool result');
    t.match(sent, /Say what you remember\./, 'and the new feedback');
    const last = again.turns.filter((x: any) => x.role === 'agent').at(-1);
    t.equal(last.details.agent_session_id, session, 'the same session');
    const logs = readdirSync(join(sb.dir, '.git', 'lazy', 'runs')).map((r) =>
      readFileSync(join(sb.dir, '.git', 'lazy', 'runs', r, 'output.log'), 'utf8'),
    );
    t.ok(
      logs.some((x) => x.includes(`resuming session ${session}`)),
      'the second turn resumed the session',
    );

    // An ask turn: the same session, pi's read-only tools only.
    const asked = await l.json('ask', id, '-m', 'Why hello.txt?');
    t.equal(asked.value.answer?.content, 'Because it was asked for.');
    t.same(
      api.requests[5]!.tools.map((x) => x.name).sort(),
      ['find', 'grep', 'ls', 'read'],
      'an ask turn offers pi no tool that writes or runs',
    );
    t.match(JSON.stringify(api.requests[5]!.messages), /I remember: hello\.txt is there\./, 'in the same conversation');
  },
);

t.test('real pi: a 401 from the API blocks the task as fatal_auth, not retried', async (t) => {
  const { api, l } = await piBox(t, () => ({
    status: 401,
    error: { type: 'authentication_error', message: 'invalid x-api-key' },
  }));
  const id = await l.create('no key', '--accept', 'done');
  t.equal((await l('start', id)).code, 0);
  const w = (await l.json('wait', id, '--timeout', '90')).value.task;
  t.equal(w.status, 'blocked');
  t.equal(w.attention?.kind, 'failure');
  t.match(w.attention.reason, /fatal_auth: 401 .*invalid x-api-key/);
  t.equal(w.turns.at(-1).details.failure_class, 'fatal_auth');
  t.equal(api.requests.length, 1, 'neither pi nor lazy retried');
});
