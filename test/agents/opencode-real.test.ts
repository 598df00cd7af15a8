import t, { type Test } from 'tap';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli, gitSync, ROOT, sandbox, type Sandbox } from '../helpers/env.js';
import { eventually } from '../helpers/agent.js';
import {
  fakeAnthropic,
  toolResults,
  type FakeApi,
  type ErrorReply,
  type Reply,
  type Request,
} from '../helpers/anthropic.js';

t.jobs = 2;

// The real opencode CLI (opencode-ai 1.18.33), offline: its provider is configured, as a user would in
// their own ~/.config/opencode/opencode.json, to speak the Messages API to a scripted loopback stand-in.
// lazy adds only its per-run config (permissions, its MCP server) through the environment.

const OPENCODE = join(ROOT, 'node_modules', '.bin', 'opencode');

async function opencodeBox(
  t: Test,
  script: (req: Request, n: number) => Reply | ErrorReply | Promise<Reply | ErrorReply>,
) {
  const api = await fakeAnthropic(script);
  const sb = sandbox('lazy-opencode');
  t.teardown(async () => {
    await sb.cleanup();
    await api.close();
  });
  userConfig(sb, api);
  const l = cli(sb, {
    XDG_CONFIG_HOME: join(sb.home, '.config'),
    XDG_DATA_HOME: join(sb.home, '.local', 'share'),
    XDG_CACHE_HOME: join(sb.home, '.cache'),
    XDG_STATE_HOME: join(sb.home, '.local', 'state'),
    // Offline: no models.dev catalogue, and its background plugin install reaches no registry.
    OPENCODE_DISABLE_MODELS_FETCH: '1',
    npm_config_registry: 'http://127.0.0.1:9/',
  });
  t.equal((await l('config', 'set', 'agents.opencode.command', OPENCODE)).code, 0);
  return { api, sb, l };
}

/** The user's own opencode config: a provider at the stand-in, priced so opencode reports a cost. */
function userConfig(sb: Sandbox, api: FakeApi): void {
  const dir = join(sb.home, '.config', 'opencode');
  mkdirSync(dir, { recursive: true });
  const provider = {
    npm: '@ai-sdk/anthropic',
    name: 'Loopback',
    options: { baseURL: `${api.url}/v1`, apiKey: 'sk-test-offline' },
    models: {
      'mock-sonnet': { name: 'Mock Sonnet', cost: { input: 3, output: 15, cache_read: 0.3, cache_write: 3.75 } },
    },
  };
  writeFileSync(
    join(dir, 'opencode.json'),
    JSON.stringify({ provider: { mock: provider }, model: 'mock/mock-sonnet' }),
  );
}

/** Every run's output log, for a failure's report. */
function runLogs(sb: Sandbox): string {
  const runs = join(sb.dir, '.git', 'lazy', 'runs');
  return readdirSync(runs)
    .map((r) => `run ${r}:\n${readFileSync(join(runs, r, 'output.log'), 'utf8').slice(0, 8000)}`)
    .join('\n');
}

const userText = (req: Request) => JSON.stringify(req.messages);

t.test(
  "real opencode: a turn writes with its write tool, reports through lazy's MCP tools, parks blocked, and the next turn resumes it",
  async (t) => {
    if (!existsSync(OPENCODE)) return t.fail('the opencode CLI is not installed (opencode-ai)');
    const cat = {
      type: 'tool_use' as const,
      name: 'bash',
      input: { command: 'cat hello.txt', description: 'Show it' },
    };
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    t.teardown(() => release());
    // One opencode run per turn is the cost here: the first turn shows the write tool, the rejected bash
    // and lazy's MCP tools (progress while it works, the review from lazy_finish); the second, the resume.
    const { api, sb, l } = await opencodeBox(t, async (req, n) => {
      const write = { filePath: 'hello.txt', content: 'hello\n' };
      if (n === 0) return { stop: 'tool_use', blocks: [{ type: 'tool_use', name: 'write', input: write }] };
      if (n === 1 || n === 5) return { stop: 'tool_use', blocks: [cat] };
      if (n === 2) {
        const progress = { type: 'tool_use' as const, name: 'lazy_lazy_update_progress' };
        return { stop: 'tool_use', blocks: [{ ...progress, input: { message: 'running   step 2/3' } }] };
      }
      if (n === 3) {
        await released;
        const input = {
          summary: 'Did the three steps.',
          risks: ['step 3 is slow'],
          commands: [{ command: 'npm test', exit_code: 0 }],
        };
        return { stop: 'tool_use', blocks: [{ type: 'tool_use', name: 'lazy_lazy_finish', input }] };
      }
      if (n === 4) return { stop: 'end_turn', blocks: [{ type: 'text', text: 'Finished.' }] };
      return { stop: 'end_turn', blocks: [{ type: 'text', text: 'Added more.' }] };
    });
    const id = await l.create('write hello', '--accept', 'hello.txt says hello');
    t.equal((await l('start', id, '--agent', 'opencode')).code, 0);
    // The progress call's result reaches the stand-in in the request it gates: lazy wrote the progress
    // before it answered that call, so one show sees it while opencode still works (no polling of show).
    const progressed = await eventually(() => api.requests[3], 120_000, 'opencode to send the tool result back');
    t.equal(toolResults(progressed)[0]?.name, 'lazy_lazy_update_progress');
    t.notOk(toolResults(progressed)[0]?.is_error, `the server took the call: ${toolResults(progressed)[0]?.content}`);
    const shown = (await l.json('show', id)).value;
    t.equal(shown.substate?.kind, 'agent', JSON.stringify(shown.substate));
    t.equal(shown.substate?.message, 'running step 2/3');
    t.ok(
      api.requests[0]!.tools.some((x) => x.name === 'lazy_lazy_finish'),
      "opencode listed lazy's tools to the model",
    );
    release();
    const w = (await l.json('wait', id, '--timeout', '120')).value.task;
    t.equal(w.status, 'blocked', JSON.stringify(w.attention));
    t.equal(w.attention?.kind, 'review');
    // opencode resolves paths against $PWD: lazy's own checkout (and this test's) must be left alone.
    const stray = [sb.dir, process.cwd()].filter((d) => existsSync(join(d, 'hello.txt')));
    t.same(stray, [], `written in the task worktree only\n${stray.length ? runLogs(sb) : ''}`);
    const tree = gitSync(sb.dir, sb.env, ['ls-tree', '--name-only', `lazy/${id}`]);
    t.match(tree, /^hello\.txt$/m, 'the file is committed on the task branch');
    t.equal(gitSync(sb.dir, sb.env, ['show', `lazy/${id}:hello.txt`]), 'hello\n');
    t.equal(toolResults(api.requests[1]!)[0]?.name, 'write', 'opencode ran its write tool and sent the result back');
    t.match(userText(api.requests[0]!), /write hello/, 'the prompt reached the model');
    const finished = toolResults(api.requests[4]!);
    t.equal(finished[0]?.name, 'lazy_lazy_finish');
    t.notOk(finished[0]?.is_error, `lazy_finish was accepted: ${finished[0]?.content}`);
    const turn = w.turns.filter((x: any) => x.role === 'agent').at(-1);
    t.equal(turn.content, 'Did the three steps.', 'the review summary came from the tool call');
    t.same(turn.details.risks, ['step 3 is slow']);
    t.match(turn.details.agent_session_id, /^ses_/, 'the session id is recorded from the stream');
    // Edits are allowed and nothing else: run mode rejects the bash call, which ran nothing (the review's
    // commands are lazy_finish's alone).
    t.same(turn.details.commands, [{ command: 'npm test', exit_code: 0 }], 'bash was not allowed by default');
    t.match(toolResults(api.requests[2]!)[0], { name: 'bash', is_error: true });
    // Five API calls, each 30 in / 20 out / 11 cache read / 7 cache written (the stand-in's counts).
    t.same(turn.details.usage, {
      input_tokens: 150,
      output_tokens: 100,
      cache_read_input_tokens: 55,
      cache_creation_input_tokens: 35,
    });
    const shownDone = (await l.json('show', id)).value;
    t.ok(shownDone.usage.cost_usd > 0, `opencode's cost is recorded: ${shownDone.usage.cost_usd}`);
    const follow = await l('show', id);
    t.equal(follow.code, 0);

    const before = api.requests.length;
    t.equal((await l('config', 'set', 'agents.opencode.permission_mode', 'auto')).code, 0);
    t.equal((await l('unblock', id, '-m', 'add a second line')).code, 0);
    const again = (await l.json('wait', id, '--timeout', '120')).value.task;
    t.equal(again.status, 'blocked');
    const resumed = api.requests[before]!;
    t.match(userText(resumed), /Finished\./, "the resumed turn's first request carries the earlier conversation");
    t.match(userText(resumed), /add a second line/);
    const last = again.turns.filter((x: any) => x.role === 'agent').at(-1);
    t.equal(last.details.agent_session_id, turn.details.agent_session_id, 'the same opencode session');
    t.equal(last.content, 'Added more.', "without lazy_finish, the result is the model's last text");
    t.same(last.details.commands, [{ command: 'cat hello.txt', exit_code: 0 }], 'under auto it ran, into the review');
  },
);

t.test('real opencode: a 401 from the provider blocks the task as fatal_auth', async (t) => {
  if (!existsSync(OPENCODE)) return t.fail('the opencode CLI is not installed (opencode-ai)');
  const { api, l } = await opencodeBox(t, () => ({
    status: 401,
    error: { type: 'authentication_error', message: 'invalid x-api-key' },
  }));
  const id = await l.create('no key', '--accept', 'done');
  t.equal((await l('start', id, '--agent', 'opencode')).code, 0);
  const w = (await l.json('wait', id, '--timeout', '120')).value.task;
  t.equal(w.status, 'blocked');
  t.equal(w.attention?.kind, 'failure');
  t.match(w.attention.reason, /fatal_auth: invalid x-api-key \(401\)/);
  t.equal(w.turns.at(-1).details.failure_class, 'fatal_auth');
  t.equal(api.requests.length, 1, 'not retried');
});
