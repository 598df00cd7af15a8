import t from 'tap';
import { join } from 'node:path';
import { agentSandbox, eventually, type AgentBox } from '../helpers/agent.js';
import { cleanupAfterSupervisors } from '../helpers/supervisors.js';
import { background, exited } from '../helpers/procs.js';
import { ROOT } from '../helpers/env.js';
import { beginWaitOn, writeProgress } from '../../lib/agents/substate.js';

// Issue 13, section 2: the working substate (lib/agents/substate.ts) shown everywhere: list's
// STATUS cell and its JSON rows, show (text and JSON), watch (text and JSON). A wait on a
// subtask wins over the progress line while its holder lives; a holder that died shows nothing,
// and a settled wait clears. Nothing is shown once the turn is over.

const lazyDirOf = (box: AgentBox) => join(box.sb.dir, '.git', 'lazy');

/** A task whose agent works until it is stopped: its id and its current run. */
async function working(box: AgentBox): Promise<{ id: string; run: string }> {
  box.scenario('hang');
  const id = await box.l.create('migrate the database', '--accept', 'done');
  const s = await box.l.json('start', id);
  await eventually(() => box.invocations()[0], 20_000, 'the agent');
  return { id, run: s.value.run.id };
}

/** What every surface says of the task: list, show and watch, text and JSON. */
async function surfaces(box: AgentBox, id: string) {
  const listRow = (await box.l.json('list')).value.find((r: any) => r.id === id);
  const watchRow = (await box.l.json('watch')).value.find((r: any) => r.id === id);
  const show = (await box.l.json('show', id)).value;
  const text = {
    list: (await box.l('list')).stdout,
    show: (await box.l('show', id)).stdout,
    watch: (await box.l('watch')).stdout,
  };
  return { json: { list: listRow.substate, show: show.substate, watch: watchRow.substate }, text };
}

t.test('the progress line, a wait on a subtask, a dead holder, a settled wait, the end of the turn', async (t) => {
  const box = await agentSandbox();
  cleanupAfterSupervisors(t, box.sb);
  const { id, run } = await working(box);
  const other = await box.l.create('an idle task');
  const dir = lazyDirOf(box);

  let s = await surfaces(box, id);
  t.strictSame(s.json, { list: null, show: null, watch: null }, 'no substate before the agent says anything');
  t.match(s.text.list, new RegExp(`${id}\\s+working\\s`), 'plain working');

  writeProgress(dir, run, 'running   migration\n3/7');
  s = await surfaces(box, id);
  for (const k of ['list', 'show', 'watch'] as const) {
    t.match(s.json[k], { kind: 'agent', message: 'running migration 3/7' }, `${k} --json: the progress line`);
    t.match(s.text[k], 'working (agent: running migration 3/7)', `${k}: the progress line in the status`);
  }
  t.match(s.text.show, /^status: {4}working \(agent: running migration 3\/7\)/m);
  const idle = (await box.l.json('list')).value.find((r: any) => r.id === other);
  t.equal(idle.substate, null, 'a task that is not working: substate null');

  // A wait held by this (live) process wins over the progress line.
  const end = beginWaitOn(dir, run, other);
  s = await surfaces(box, id);
  for (const k of ['list', 'show', 'watch'] as const) {
    t.match(s.json[k], { kind: 'waiting_on', task: other }, `${k} --json: the wait`);
    t.match(s.text[k], new RegExp(`working \\(waiting on ${other} \\d+s\\)`), `${k}: waiting on the subtask`);
  }
  end();
  s = await surfaces(box, id);
  t.match(s.json.list, { kind: 'agent' }, 'a settled wait clears: the progress line again');
  t.notMatch(s.text.list, 'waiting on');

  // A wait whose holder was SIGKILLed (the MCP server died mid-call) is not believed.
  const holder = background(
    process.execPath,
    [
      '--import=tsx',
      '-e',
      `import(${JSON.stringify(join(ROOT, 'lib/agents/substate.ts'))}).then((m) => {
         m.beginWaitOn(${JSON.stringify(dir)}, ${JSON.stringify(run)}, ${JSON.stringify(other)});
         process.stdout.write('holding\\n');
         setInterval(() => {}, 1000);
       });`,
    ],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let said = '';
  holder.stdout.on('data', (d) => (said += d));
  await eventually(() => said.includes('holding'), 20_000, 'the holder');
  t.match((await surfaces(box, id)).json.list, { kind: 'waiting_on' }, 'shown while its holder lives');
  holder.kill('SIGKILL');
  await exited(holder);
  s = await surfaces(box, id);
  for (const k of ['list', 'show', 'watch'] as const)
    t.match(s.json[k], { kind: 'agent', message: 'running migration 3/7' }, `${k}: a dead holder's wait is over`);
  t.notMatch(s.text.watch, 'waiting on');

  // Once the turn is over nothing of it is shown, though its files stay in the run's directory.
  t.equal((await box.l.json('stop', id)).run.code, 0);
  s = await surfaces(box, id);
  t.strictSame(s.json, { list: null, show: null, watch: null }, 'not working: no substate');
  t.notMatch(s.text.show, 'agent: running migration');
});
