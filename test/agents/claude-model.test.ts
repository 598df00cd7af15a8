import t from 'tap';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { cli, ROOT, sandbox } from '../helpers/env.js';
import { fakeAnthropic } from '../helpers/anthropic.js';

// The real Claude Code CLI (the pinned devDependency), offline against a scripted loopback Messages API:
// the model lazy resolves for a turn (the task's, else agents.claude.model) is the one claude asks the API for.

const NATIVE = join(ROOT, 'node_modules', '@anthropic-ai', `claude-code-${process.platform}-${process.arch}`, 'claude');
const CLAUDE = existsSync(NATIVE) ? NATIVE : join(ROOT, 'node_modules', '.bin', 'claude');

t.test("real claude asks the API for the task's model, else agents.claude.model", async (t) => {
  if (!existsSync(CLAUDE)) return t.fail('the claude CLI is not installed (npm ci installs it)');
  const api = await fakeAnthropic(() => ({ stop: 'end_turn', blocks: [{ type: 'text', text: 'Done.' }] }));
  const sb = sandbox('lazy-claude-model');
  t.teardown(async () => {
    await sb.cleanup();
    await api.close();
  });
  const l = cli(sb, {
    ANTHROPIC_BASE_URL: api.url,
    ANTHROPIC_API_KEY: 'sk-test-offline',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  });
  for (const [k, v] of [
    ['agents.claude.command', CLAUDE],
    ['agents.claude.model', 'claude-configured-model'],
    ['agent', 'claude'],
    ['mcp', 'false'],
  ])
    t.equal((await l('config', 'set', k!, v!)).code, 0);

  const own = await l.create('say done', '--accept', 'it said done', '--model', 'claude-task-model');
  t.equal((await l('start', own)).code, 0);
  t.equal((await l.json('wait', own, '--timeout', '120')).value.task.status, 'blocked');
  const plain = await l.create('say done again', '--accept', 'it said done');
  t.equal((await l('start', plain)).code, 0);
  t.equal((await l.json('wait', plain, '--timeout', '120')).value.task.status, 'blocked');

  t.same(
    [...new Set(api.requests.map((r) => r.model))],
    ['claude-task-model', 'claude-configured-model'],
    "the task's own model, then the agent's configured one, reached the API",
  );
  const turn = async (id: string) =>
    (await l.json('show', id)).value.turns.find((x: any) => x.role === 'agent').details;
  t.match(await turn(own), { model: 'claude-task-model', outcome: 'completed' });
  t.match(await turn(plain), { model: 'claude-configured-model', outcome: 'completed' });
});
