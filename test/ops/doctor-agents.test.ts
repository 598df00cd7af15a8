import t from 'tap';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { agentSandbox, eventually } from '../helpers/agent.js';
import { ROOT } from '../helpers/env.js';
import { packageVersion, VERSION_TIMEOUT_MS } from '../../lib/agents/inventory.js';

// issue 30, "lazy doctor lists the agents it finds": the built-in names and every configured
// agent, each with its program, its version (its npm package's, the real claude CLI's; else `<command> --version`
// included) and whether a turn could start with it. A missing agent is information; only a
// default agent that cannot run is a finding (a warning), and doctor's exit code is unchanged.

t.jobs = 2;

/** The pinned claude CLI first, then node (its shebang's), then the system's basics: nothing else. */
const PATH = [join(ROOT, 'node_modules', '.bin'), dirname(process.execPath), '/usr/bin', '/bin'].join(':');

t.test('doctor lists every agent with its version: the real claude CLI, the fake one, a missing one', async (t) => {
  const box = await agentSandbox({ env: { PATH, FAKE_VERSION: 'fake-agent 9.9.9' } });
  const { sb, l } = box;
  t.teardown(sb.cleanup);
  for (const [k, v] of [
    ['agents.missing.command', '/nonexistent/bin/agent --fast'],
    ['agents.claude.model', 'claude-opus-4-1'],
  ])
    t.equal((await l('config', 'set', k!, v!)).code, 0);

  const d = await l.json('doctor');
  t.equal(d.run.code, 0, 'a missing agent leaves doctor healthy');
  const by = Object.fromEntries(d.value.agents.map((a: any) => [a.name, a]));
  t.same(
    d.value.agents.map((a: any) => a.name),
    ['claude', 'codex', 'gemini', 'opencode', 'pi', 'fake', 'missing'],
    'the built-in names, then the configured ones',
  );
  t.match(by.claude, {
    adapter: 'claude',
    command: 'claude',
    path: join(ROOT, 'node_modules', '.bin', 'claude'),
    // An npm-installed CLI's version is its package's (starting gemini only to ask costs two seconds).
    version: JSON.parse(
      readFileSync(join(ROOT, 'node_modules', '@anthropic-ai', 'claude-code', 'package.json'), 'utf8'),
    ).version,
    usable: true,
    default: false,
    model: 'claude-opus-4-1',
    problem: null,
  });
  t.match(by.fake, { adapter: 'command', version: 'fake-agent 9.9.9', usable: true, default: true, trusted: true });
  t.match(by.missing, {
    command: '/nonexistent/bin/agent --fast',
    path: null,
    version: null,
    usable: false,
    problem: /'\/nonexistent\/bin\/agent' is not installed/,
  });
  t.notOk(
    d.value.findings.some((f: any) => f.code === 'default_agent_unusable'),
    'no finding while the default agent runs',
  );
  t.equal(box.invocations().length, 0, "the fake agent's --version runs no scenario");
});

t.test('a --version that hangs is killed with its group when the time is up, not waited on', async (t) => {
  // No claude on this PATH: the only probe the clock's jump ends is the slow one.
  const { sb, l, clock } = await agentSandbox({
    env: { PATH: [dirname(process.execPath), '/usr/bin', '/bin'].join(':') },
  });
  t.teardown(sb.cleanup);
  const started = join(sb.home, 'slow-started');
  const pidFile = join(sb.home, 'slow-pid');
  const slow = join(sb.home, 'slow-agent');
  writeFileSync(slow, `#!/bin/sh\necho $$ > "${pidFile}"\n: > "${started}"\nexec sleep 600\n`);
  chmodSync(slow, 0o755);
  t.equal((await l('config', 'set', 'agents.slow.command', slow)).code, 0);
  const running = l.json('doctor');
  // The probe is a real process: once it runs, the test's clock passes its timeout at once.
  await eventually(() => existsSync(started), 20_000, 'the slow agent to start');
  clock.advance(VERSION_TIMEOUT_MS + 1);
  const d = await running;
  t.equal(d.run.code, 0);
  t.match(
    d.value.agents.find((a: any) => a.name === 'slow'),
    { path: slow, version: null, usable: true },
    'a CLI that does not answer has no version',
  );
  const pid = Number(readFileSync(pidFile, 'utf8'));
  const alive = () => existsSync(`/proc/${pid}`) && !/\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  t.notOk(alive(), 'and the slow one is ended');
});

t.test('a default agent that cannot run is a warning; the text lists each agent', async (t) => {
  const { sb, l } = await agentSandbox({ env: { PATH }, settings: { agent: 'missing' } });
  t.teardown(sb.cleanup);
  t.equal((await l('config', 'set', 'agents.missing.command', 'no-such-agent-cli')).code, 0);
  const d = await l.json('doctor');
  t.equal(d.run.code, 0, 'a warning keeps the exit code 0');
  t.same(
    d.value.findings
      .filter((f: any) => f.code === 'default_agent_unusable')
      .map((f: any) => [f.level, f.details.agent]),
    [['warning', 'missing']],
  );
  const text = await l('doctor');
  t.equal(text.code, 0);
  t.match(text.stdout, /^agent {3}claude: usable, \d+\.\d+\.\d+, \S+\/claude \(claude adapter\)$/m);
  t.match(text.stdout, /^agent {3}fake: usable, fake-agent 1\.0\.0, /m);
  t.match(
    text.stdout,
    /^agent {3}missing: not usable: .*'no-such-agent-cli' is not installed or not on PATH \(command adapter, default\)$/m,
  );
  t.match(text.stdout, /^warning default_agent_unusable: the default agent missing cannot run a turn: /m);
  t.match(text.stdout, /^healthy: 0 task\(s\) checked, 0 error\(s\), 1 warning\(s\)$/m);
});

t.test('a package version only for a program run as itself; a broken package.json is passed over', async (t) => {
  const box = await agentSandbox();
  t.teardown(box.sb.cleanup);
  const claude = join(ROOT, 'node_modules', '.bin', 'claude');
  // A launcher's package is not the agent's (npx @google/gemini-cli is npm's): with arguments, --version answers.
  t.equal((await box.l('config', 'set', 'agents.wrapped.command', `${claude} --verbose`)).code, 0);
  const wrapped = (await box.l.json('doctor')).value.agents.find((a: any) => a.name === 'wrapped');
  t.match(wrapped.version, /\(Claude Code\)$/, 'its own --version line, not a package read');
  const dir = join(box.sb.home, 'pkg', 'bin');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, '..', 'package.json'), 'null');
  writeFileSync(join(dir, 'tool'), '#!/bin/sh\n');
  t.equal(packageVersion(join(dir, 'tool')), null, 'a package.json holding null is no package, and no throw');
  t.equal(packageVersion(claude), wrapped.version.split(' ')[0], 'the bare program: its package, the same version');
});
