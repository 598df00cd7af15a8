import t from 'tap';
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { agentSandbox, runDirOf, readJson, type AgentBox, type Invocation } from '../helpers/agent.js';
import { LAZY } from '../helpers/env.js';
import { mcpEnv, wireMcp } from '../../lib/agents/mcp-wiring.js';
import { splitCommand } from '../../lib/agents/adapters/split.js';
import { codex } from '../../lib/agents/adapters/codex.js';
import { CLAUDE_MCP_WAIT } from '../../lib/agents/adapters/claude.js';

t.jobs = 3;

// Issue 13: every agent launch carries lazy's MCP server, bound to its run by how lazy launched it:
// claude through --mcp-config, codex through -c mcp_servers.lazy.*, any other program through
// LAZY_MCP_COMMAND / LAZY_MCP_CONFIG. Config `mcp: false` turns the wiring off.

/** The MCP_* variables the agent was started with. */
const mcpVars = (inv: Invocation) => Object.fromEntries(Object.entries(inv.env).filter(([k]) => k.startsWith('MCP_')));

const flag = (argv: string[], name: string) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);

/** Runs one turn of a new task to its end; what the fake agent received, and the run's directory. */
async function oneTurn(box: AgentBox): Promise<{ inv: Invocation; dir: string; id: string }> {
  const id = await box.l.create('wired', '--accept', 'done');
  const s = await box.l('start', id);
  if (s.code !== 0) throw new Error(s.stderr);
  const w = await box.l.json('wait', id, '--timeout', '30');
  if (w.value.task.status !== 'blocked') throw new Error(JSON.stringify(w.value.task).slice(0, 300));
  const inv = box.invocations().at(-1)!;
  return { inv, dir: runDirOf(box.sb, inv.env.LAZY_RUN!), id };
}

/** The server command line every agent is given for `run`. */
const serverArgv = (box: AgentBox, run: string) => [
  process.execPath,
  LAZY,
  '-C',
  realpathSync(box.sb.dir),
  'mcp',
  '--run',
  run,
];

t.test('a command agent gets LAZY_MCP_COMMAND and LAZY_MCP_CONFIG; mcp.json names the same server', async (t) => {
  const box = await agentSandbox();
  t.teardown(box.sb.cleanup);
  const { inv, dir } = await oneTurn(box);
  const run = inv.env.LAZY_RUN!;
  const argv = serverArgv(box, run);
  t.same(splitCommand(inv.env.LAZY_MCP_COMMAND!), argv, 'the command line parses back to the server argv');
  t.equal(inv.env.LAZY_MCP_CONFIG, join(dir, 'mcp.json'));
  const server = readJson(join(dir, 'mcp.json')).mcpServers.lazy;
  t.same({ ...server, env: undefined }, { command: argv[0], args: argv.slice(1), env: undefined });
  // MCP clients start servers with a short list of safe variables: git's identity must be named.
  t.equal(server.env.GIT_AUTHOR_NAME, 'Ada Lovelace', "the server gets git's identity from lazy's environment");
  t.equal(server.env.GIT_CONFIG_GLOBAL, box.sb.env.GIT_CONFIG_GLOBAL);
  t.notOk('LAZY_RUN' in server.env, "the binding is the server's argv, never its environment");
  t.notOk(inv.argv.includes('--mcp-config'), 'a command agent gets nothing extra in argv');
  t.equal(inv.env.LAZY_ACTOR, 'agent', "what the agent does through lazy is recorded as the agent's");
});

t.test(
  'claude gets --mcp-config <run dir>/mcp.json and --allowedTools mcp__lazy, and waits for the server',
  async (t) => {
    // The user's own setting wins over lazy's default.
    const box = await agentSandbox({ adapter: 'claude', env: { MCP_CONNECT_TIMEOUT_MS: '45000' } });
    t.teardown(box.sb.cleanup);
    const { inv, dir } = await oneTurn(box);
    t.equal(flag(inv.argv, '--mcp-config'), join(dir, 'mcp.json'));
    t.equal(flag(inv.argv, '--allowedTools'), 'mcp__lazy');
    t.same(readJson(join(dir, 'mcp.json')).mcpServers.lazy.args, serverArgv(box, inv.env.LAZY_RUN!).slice(1));
    t.notOk('LAZY_MCP_COMMAND' in inv.env, 'claude reads its server from argv');
    t.same(
      mcpVars(inv),
      { ...CLAUDE_MCP_WAIT, MCP_CONNECT_TIMEOUT_MS: '45000' },
      'claude waits for the server to connect before its turn begins, as long as the user allows',
    );
    t.equal(flag(inv.argv, '--permission-mode'), 'acceptEdits', 'the rest of the launch is unchanged');
  },
);

t.test('codex gets -c mcp_servers.lazy.command and .args as TOML values', async (t) => {
  const box = await agentSandbox({ settings: { 'agents.fake.adapter': 'codex' } });
  t.teardown(box.sb.cleanup);
  const { inv } = await oneTurn(box);
  const argv = serverArgv(box, inv.env.LAZY_RUN!);
  const values = inv.argv.filter((a, i) => inv.argv[i - 1] === '-c');
  const cmd = values.find((v) => v.startsWith('mcp_servers.lazy.command='))!;
  const args = values.find((v) => v.startsWith('mcp_servers.lazy.args='))!;
  t.equal(JSON.parse(cmd.slice(cmd.indexOf('=') + 1)), argv[0], 'command: a TOML string of node');
  t.same(JSON.parse(args.slice(args.indexOf('=') + 1)), argv.slice(1), 'args: a TOML array of strings');
  const envValue = values.find((v) => v.startsWith('mcp_servers.lazy.env='))!;
  t.match(envValue, /GIT_AUTHOR_NAME = "Ada Lovelace"/, "env: a TOML inline table holding git's identity");
  t.ok(values.includes('mcp_servers.lazy.startup_timeout_sec=30'), 'codex gives the server 30 s to start, not 10');
  t.ok(values.includes('mcp_servers.lazy.tool_timeout_sec=86400'), 'and a wait on a subtask a day, not 60 s');
  t.same(mcpVars(inv), {}, "claude's variables are claude's alone");
  t.ok(inv.argv.indexOf(cmd) < inv.argv.indexOf('--'), 'options come before --, the prompt after');
  t.notOk('LAZY_MCP_COMMAND' in inv.env);
});

t.test('paths with spaces, quotes and control characters survive both encodings', async (t) => {
  const lazyDir = mkdtempSync(join(tmpdir(), 'lazy-wire-'));
  t.teardown(() => rmSync(lazyDir, { recursive: true, force: true }));
  const top = `/tmp/it's a "repo"\\ with\ttab\nnewline\u007fdel $HOME \`x\``;
  const w = wireMcp({ lazyDir, repoTop: top, cliPath: '/opt/la zy/cli.cjs', run: 'r1' });
  t.same(w.argv.slice(1), ['/opt/la zy/cli.cjs', '-C', top, 'mcp', '--run', 'r1']);
  t.same(splitCommand(mcpEnv(w).LAZY_MCP_COMMAND!), w.argv, 'shell quoting round-trips');
  t.same(JSON.parse(readFileSync(w.config, 'utf8')).mcpServers.lazy.args, w.argv.slice(1));
  const argv = codex.argv(
    { name: 'codex', adapter: 'codex', command: ['codex'] },
    { prompt: 'p', sessionId: null, mode: 'work', mcp: w },
  );
  const args = argv.find((a) => a.startsWith('mcp_servers.lazy.args='))!;
  // TOML basic strings use a subset of JSON's escapes; TOML also forbids a raw DEL, JSON does not.
  t.notMatch(args, /[\u0000-\u001f\u007f]/, 'no raw control character (DEL included) in the TOML value');
  t.same(JSON.parse(args.slice(args.indexOf('=') + 1)), w.argv.slice(1), 'the TOML array reads back');
});

t.test('mcp false: no wiring at all, and the result file still works', async (t) => {
  const box = await agentSandbox({ adapter: 'claude', settings: { mcp: 'false' } });
  t.teardown(box.sb.cleanup);
  const bad = await box.l('config', 'set', 'mcp', 'maybe');
  t.equal(bad.code, 2, 'mcp takes true or false');
  t.equal((await box.l.json('config', 'get', 'mcp')).value.value, false);
  const { inv, dir, id } = await oneTurn(box);
  t.notOk(inv.argv.includes('--mcp-config'));
  t.notOk(inv.argv.includes('--allowedTools'));
  t.same(mcpVars(inv), {}, 'no server to wait for');
  t.notOk(existsSync(join(dir, 'mcp.json')), 'no mcp.json is written');
  const shown = (await box.l.json('show', id)).value;
  t.equal(shown.turns.find((x: any) => x.role === 'agent').content, 'did turn 1', 'the envelope decided the turn');
  await box.l('config', 'set', 'agents.fake.adapter', 'command');
  await box.l('unblock', id, '-m', 'again');
  await box.l('wait', id, '--timeout', '30');
  const cmd = box.invocations().at(-1)!;
  t.notOk('LAZY_MCP_COMMAND' in cmd.env, 'a command agent gets no LAZY_MCP_COMMAND');
  t.notOk('LAZY_MCP_CONFIG' in cmd.env);
});
