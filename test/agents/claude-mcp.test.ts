import t from 'tap';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { cli, ROOT, sandbox } from '../helpers/env.js';
import { eventually } from '../helpers/agent.js';
import { fakeAnthropic, toolResults, type FakeApi } from '../helpers/anthropic.js';

// The real Claude Code CLI (a devDependency, pinned), offline: a scripted loopback Messages API
// makes it call lazy's MCP server the way a model would, by the tool names lazy's server listed.
// lazy's server starts 8 s late, as on a loaded machine: claude, left to itself, would begin the turn
// without it after a few seconds (measured with 2.1.197), and the tools below would not exist.

// The native binary of this platform's optional dependency: node_modules/.bin/claude is a stub until the
// package's postinstall links that binary in, and an install may skip scripts.
const NATIVE = join(ROOT, 'node_modules', '@anthropic-ai', `claude-code-${process.platform}-${process.arch}`, 'claude');
const CLAUDE = existsSync(NATIVE) ? NATIVE : join(ROOT, 'node_modules', '.bin', 'claude');

t.test('real claude: progress through lazy_update_progress while it works, the review from lazy_finish', async (t) => {
  if (!existsSync(CLAUDE)) return t.fail('the claude CLI is not installed (npm ci installs it)');
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  const api = await fakeAnthropic(async (req, n) => {
    if (n === 0)
      return {
        stop: 'tool_use',
        blocks: [
          { type: 'text', text: 'Starting the migration.' },
          { type: 'tool_use', name: 'mcp__lazy__lazy_update_progress', input: { message: 'running   migration 3/7' } },
        ],
      };
    if (n === 1) {
      await released; // the turn stays in flight until the test has seen the substate
      const input = {
        summary: 'Migrated the schema to version 7.',
        risks: ['migration 5 rewrites a large table'],
        commands: [{ command: 'npm test', exit_code: 0 }],
      };
      return { stop: 'tool_use', blocks: [{ type: 'tool_use', name: 'mcp__lazy__lazy_finish', input }] };
    }
    return { stop: 'end_turn', blocks: [{ type: 'text', text: 'Finished.' }] };
  });
  const sb = sandbox('lazy-claude');
  t.teardown(async () => {
    release();
    await sb.cleanup();
    await api.close();
  });
  const l = cli(sb, {
    ANTHROPIC_BASE_URL: api.url,
    ANTHROPIC_API_KEY: 'sk-test-offline',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    NODE_OPTIONS: `--import=${pathToFileURL(join(ROOT, 'test', 'fixtures', 'slow-mcp-start.mjs')).href}`,
    SLOW_MCP_MS: '8000',
  });
  for (const [k, v] of [
    ['agents.claude.command', CLAUDE],
    ['agent', 'claude'],
  ])
    t.equal((await l('config', 'set', k!, v!)).code, 0);
  const id = await l.create('migrate the schema', '--accept', 'the schema is at version 7');
  t.equal((await l('start', id)).code, 0);

  const shown = await eventually(
    async () => {
      const v = (await l.json('show', id)).value;
      return v.substate?.kind === 'agent' ? v : undefined;
    },
    60_000,
    'the progress substate',
  ).catch((e) => {
    t.comment(diagnosis(sb.dir, api));
    throw e;
  });
  t.equal(shown.status, 'working');
  t.same(shown.substate.message, 'running migration 3/7', 'whitespace collapsed');
  const listed = await l('list');
  t.match(listed.stdout, `working (agent: running migration 3/7)`, 'list shows the substate');
  // The server records the substate before it answers: the request carrying the answer may still be on its way.
  const second = await eventually(() => api.requests[1], 30_000, 'claude to send the tool result back');
  const progressed = toolResults(second);
  t.equal(progressed[0]?.name, 'mcp__lazy__lazy_update_progress', 'claude sent the tool result back');
  t.notOk(progressed[0]?.is_error, `the server took the call: ${progressed[0]?.content}`);
  t.ok(
    api.requests[0]!.tools.some((x) => x.name === 'mcp__lazy__lazy_finish'),
    "claude listed lazy's tools to the model",
  );
  release();

  const done = (await l.json('wait', id, '--timeout', '90')).value.task;
  t.equal(done.status, 'blocked');
  t.equal(done.attention?.kind, 'review');
  const finished = toolResults(api.requests[2]!);
  t.equal(finished[0]?.name, 'mcp__lazy__lazy_finish');
  t.notOk(finished[0]?.is_error, `lazy_finish was accepted: ${finished[0]?.content}`);
  const agentTurn = done.turns.filter((x: any) => x.role === 'agent').at(-1);
  t.equal(agentTurn.content, 'Migrated the schema to version 7.', 'the review summary came from the tool call');
  t.same(agentTurn.details.risks, ['migration 5 rewrites a large table']);
  t.same(agentTurn.details.commands, [{ command: 'npm test', exit_code: 0 }]);
  const after = (await l.json('show', id)).value;
  t.equal(after.substate, null, 'the substate clears when the turn ends');
  t.ok(after.usage.cache_read_input_tokens > 0, 'cache tokens are counted');
});

/** What claude saw, for a failure's report: its run log (the init line names each MCP server's status) and the requests. */
function diagnosis(repo: string, api: FakeApi): string {
  const runs = join(repo, '.git', 'lazy', 'runs');
  const logs = readdirSync(runs).map((r) => {
    const log = join(runs, r, 'output.log');
    return `run ${r}:\n${existsSync(log) ? readFileSync(log, 'utf8').slice(0, 6000) : '(no output.log)'}`;
  });
  const requests = api.requests.map(
    (r, i) =>
      `request ${i}: tools ${
        r.tools
          .map((x) => x.name)
          .filter((x) => x.startsWith('mcp__'))
          .join(',') || '(no mcp tools)'
      }; results ${JSON.stringify(toolResults(r)).slice(0, 600)}`,
  );
  return [...logs, ...requests].join('\n');
}
