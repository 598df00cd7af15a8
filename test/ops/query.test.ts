import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { agentSandbox, eventually, runDirOf } from '../helpers/agent.js';
import { cleanupAfterSupervisors } from '../helpers/supervisors.js';

// Reads for show stay bounded whatever a run left behind.

t.test('show reads only the tail of a huge run log', async (t) => {
  const { sb, l, scenario, invocations } = await agentSandbox();
  cleanupAfterSupervisors(t, sb);
  scenario('hang');
  const id = await l.create('huge log', '--accept', 'done');
  const s = await l.json('start', id);
  await eventually(() => invocations()[0], 20_000, 'the agent');
  const log = join(runDirOf(sb, s.value.run.id), 'output.log');
  // The agent's own line goes first: appended after ours, it would be the log's last line.
  await eventually(() => existsSync(log) && readFileSync(log, 'utf8').includes('thinking forever'), 20_000, 'its line');
  // One 32 MiB line, then a last one: what an agent that never prints a newline leaves.
  appendFileSync(log, Buffer.alloc(32 * 1024 * 1024, 'z'));
  appendFileSync(log, '\nthe last line\n');
  const r = await l('show', id, '--json');
  t.equal(r.code, 0);
  t.ok(r.stdout.length < 256 * 1024, `show printed ${r.stdout.length} bytes`);
  t.equal(JSON.parse(r.stdout).run.log.at(-1), 'the last line');
  t.equal((await l.json('stop', id)).run.code, 0);
});

t.test("show's status line says nothing twice, and an interrupted turn's log is not the current turn's", async (t) => {
  const { sb, l, scenario, invocations } = await agentSandbox();
  cleanupAfterSupervisors(t, sb);
  scenario('hang');
  const id = await l.create('stopped midway', '--accept', 'done');
  const s = await l.json('start', id);
  await eventually(() => invocations()[0], 20_000, 'the agent');
  const log = join(runDirOf(sb, s.value.run.id), 'output.log');
  await eventually(() => existsSync(log) && readFileSync(log, 'utf8').includes('thinking forever'), 20_000, 'its line');
  t.match((await l('show', id)).stdout, `Current turn log (run ${s.value.run.id}`, 'while it works');
  t.equal((await l.json('stop', id)).run.code, 0);
  t.equal((await l.json('show', id)).value.status, 'interrupted');
  const shown = (await l('show', id)).stdout;
  t.notMatch(shown, 'Current turn log', 'no current turn once it is interrupted');
  t.match(shown, `Interrupted turn log (run ${s.value.run.id}`, "the interrupted turn's log instead");

  scenario('succeed');
  const done = await l.create('finished', '--accept', 'done');
  await l('start', done);
  await l('wait', done, '--timeout', '60');
  const status = (await l('show', done)).stdout.split('\n').find((x) => x.startsWith('status:'));
  t.match(status, /^status: +blocked\b/);
  t.notMatch(status, '(blocked)', `no duplicate: ${status}`);
});
