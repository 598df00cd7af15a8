import t from 'tap';
import { join } from 'node:path';
import {
  agentSandbox,
  eventually,
  readJson,
  reviewed,
  runDirOf,
  type AgentBox,
  runSettled,
  showOf,
} from '../helpers/agent.js';

t.jobs = 4;

// issue 32: a follow-up or a repair is status-neutral: the task comes back queued as it was, is resumed as what
// interrupted it, answers the question it was asked, and ends the session a follow-up opened however the round ends.

const show = showOf;
const settled = runSettled;

t.test('stop, queue, repair: still queued, a worker may pick it, and resume says it was stopped', async (t) => {
  const box = await agentSandbox();
  t.teardown(box.sb.cleanup);
  box.scenario('hang,succeed,succeed');
  const id = await box.l.create('stuck', '--accept', 'done');
  const run = (await box.l.json('start', id)).value.run.id;
  await eventually(async () => box.invocations().length === 1, 20_000, 'the agent');
  t.equal((await box.l('stop', id)).code, 0);
  await settled(box, id, run);
  t.equal((await box.l('queue', id)).code, 0);
  const before = await show(box, id);
  t.match(before.schedule, { queued: true, held: null });
  const r = await box.l.json('repair', id, '-m', 'tidy up');
  t.equal(r.run.code, 0, r.run.stderr);
  const v = await settled(box, id, r.value.run.id);
  t.equal(v.status, 'interrupted');
  t.same(v.schedule, before.schedule, 'queued as before; no "interrupted by round_end"');
  t.match(v.interrupt, { trigger: 'stop' }, "show's interrupt is the stop, not the repair's end");
  const resumed = await box.l.json('resume', id);
  t.equal(resumed.run.code, 0, resumed.run.stderr);
  await settled(box, id, resumed.value.run.id);
  t.match(
    box.invocations().at(-1)!.prompt,
    /resumed after the user stopped your previous turn \(#\d+\) with lazy stop/,
    'resumed as the stop it was, not as a crash',
  );
});

/** A task whose agent asked a question (decision), the acceptance it has, and the question. */
async function asked(box: AgentBox, scenarios: string) {
  box.scenario(scenarios);
  const id = await box.l.create('ask me', '--accept', 'done');
  await box.l('start', id);
  await box.l('wait', id, '--timeout', '30');
  const v = await show(box, id);
  if (v.attention?.kind !== 'decision') throw new Error(`no question: ${JSON.stringify(v.attention)}`);
  return { id, before: v };
}

for (const via of ['repair', 'ask'] as const) {
  t.test(`question, then ${via}: lazy answer answers the agent's question, never adds a criterion`, async (t) => {
    const box = await agentSandbox();
    t.teardown(box.sb.cleanup);
    const { id, before } = await asked(box, 'question,succeed,succeed');
    if (via === 'repair') {
      const r = await box.l.json('repair', id, '-m', 'look around');
      t.equal(r.run.code, 0, r.run.stderr);
      await settled(box, id, r.value.run.id);
    } else t.equal((await box.l('ask', id, '-m', 'what did you mean?')).code, 0);
    const mid = await show(box, id);
    t.same(mid.attention, before.attention, `the question still waits after the ${via}`);
    const a = await box.l.json('answer', id, '-m', 'use the blue one');
    t.equal(a.run.code, 0, a.run.stderr);
    await settled(box, id, a.value.run.id);
    const v = await show(box, id);
    t.same(v.acceptance, ['done'], 'the acceptance is unchanged');
    t.match(box.invocations().at(-1)!.prompt, /use the blue one/, "the next turn's prompt holds the answer");
    t.ok(
      v.turns.some((x: any) => x.content === 'use the blue one' && x.feedback === 'consumed'),
      'recorded as feedback to the agent, which its turn consumed',
    );
  });
}

t.test('stop of a follow-up whose supervisor does not answer ends the session the round opened', async (t) => {
  const box = await agentSandbox({ detached: true }); // the test stops the supervisor: a process of its own
  t.teardown(box.sb.cleanup);
  box.scenario('succeed,hang');
  const id = await reviewed(box, 'a feature');
  const acc = await box.l('accept', id, '--yes');
  t.equal(acc.code, 0, acc.stdout + acc.stderr);
  const f = await box.l.json('follow-up', id, '-m', 'one more thing');
  t.equal(f.run.code, 0, f.run.stderr);
  const run = f.value.run.id;
  t.ok((await show(box, id)).session, 'the follow-up opened a session');
  await eventually(async () => box.invocations().length === 2, 20_000, 'the agent');
  const rec = await eventually(() => {
    const r = readJson(join(runDirOf(box.sb, run), 'run.json'));
    return r.supervisor ? r : undefined;
  });
  process.kill(rec.supervisor.pid, 'SIGSTOP'); // alive, but records nothing
  t.teardown(() => {
    try {
      process.kill(rec.supervisor.pid, 'SIGCONT');
    } catch {
      /* gone */
    }
  });
  // The supervisor records nothing (stopped), so stop waits its 15 s of lazy's time for the record before writing the
  // round's end itself: the test's clock skips that wait instead of sleeping through it.
  const stopping = box.l.json('stop', id);
  let done = false;
  void stopping.finally(() => (done = true));
  while (!done) {
    box.clock.advance(1000);
    await new Promise((r) => setTimeout(r, 50));
  }
  const stopped = await stopping;
  t.equal(stopped.run.code, 0, stopped.run.stderr);
  t.match(stopped.value.task.changelog.at(-1), { from: 'working', status: 'complete', trigger: 'round_end', run });
  t.same(stopped.value.task.session, null, 'the session ended with the round, as its own end does');
  process.kill(rec.supervisor.pid, 'SIGCONT');
  const v = await eventually(
    async () => {
      const x = await show(box, id);
      return x.turns.some((y: any) => y.run === run && y.role === 'agent') ? x : undefined;
    },
    20_000,
    'the late record',
  );
  t.equal(v.status, 'complete', 'the late record moves nothing');
  t.same(v.session, null, 'and no session is open');
});
