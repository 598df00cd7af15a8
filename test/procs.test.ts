import t from 'tap';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ROOT } from './helpers/env.js';
import { agentSandbox, eventually } from './helpers/agent.js';
import { background, exited, processesUnder } from './helpers/procs.js';
import { supervising } from './helpers/supervise.js';

// The test helpers' process registry: what a test starts is stopped before its folder goes,
// and a test that leaves something running fails.

t.test('cleanup stops a running turn (supervisor and agent) before it removes the folder', async (t) => {
  const { sb, l, scenario } = await agentSandbox({ detached: true });
  scenario('hang');
  const id = await l.create('hang until stopped', '--accept', 'done');
  t.equal((await l('start', id)).code, 0);
  const root = dirname(sb.dir);
  const live = await eventually(
    () => {
      const p = processesUnder(root);
      return p.length >= 2 && p;
    },
    20_000,
    'the supervisor and the agent',
  );
  t.ok(
    live.some((p) => p.cmdline.includes('__supervise')),
    'the supervisor is found by where it runs',
  );
  await sb.cleanup();
  t.same(processesUnder(root), [], 'nothing runs there any more');
  t.notOk(existsSync(root), 'and the folder is gone');
});

t.test(
  'cleanup ends a turn supervised in this process: its agent is killed and its supervisor records that',
  async (t) => {
    const { sb, l, scenario, invocations } = await agentSandbox();
    scenario('hang');
    const id = await l.create('hang until stopped', '--accept', 'done');
    const run = (await l.json('start', id)).value.run.id;
    await eventually(() => invocations().length === 1, 20_000, 'the agent');
    t.ok(supervising(run), 'the turn is supervised in this process');
    const root = dirname(sb.dir);
    t.ok(
      processesUnder(root).some((p) => p.pid === invocations()[0]!.pid),
      'the agent is a process of its own',
    );
    await sb.cleanup();
    t.notOk(supervising(run), 'the supervisor returned');
    t.same(processesUnder(root), [], 'nothing runs there any more');
    t.notOk(existsSync(root), 'and the folder is gone');
  },
);

t.test('a test that leaves a turn running fails, and its processes are stopped', async (t) => {
  const fixture = join(ROOT, 'test', 'fixtures', 'suites', 'leaky.ts');
  // The fixture is TypeScript run as it is (this file may itself run bundled).
  const child = background(process.execPath, ['--import=tsx', fixture], {
    cwd: ROOT,
    env: process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const { code } = await exited(child);
  t.not(code, 0, 'the leaky file fails');
  t.match(out, /# started \w+/, 'after it started a turn');
  t.match(
    out,
    /not ok \d+ - test "starts a turn and forgets it" left a turn running in \S+: run \w+/,
    'naming the turn it left',
  );
  const folder = /left a turn running in (\S+):/.exec(out)?.[1];
  t.ok(folder && !existsSync(folder), 'the registry stopped it and removed the folder');
});
