import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { agentSandbox, eventually, readJson, runDirOf } from '../helpers/agent.js';
import { cleanupAfterSupervisors } from '../helpers/supervisors.js';
import { concurrent } from '../helpers/concurrent.js';

// What an agent writes cannot hang or exhaust the supervisor: its result file is read
// only when regular, and its output is rotated and summarised within bounds (issue 8).

const test = concurrent(4);

test('a FIFO or a device as $LAZY_RESULT breaks the result contract; it never hangs the supervisor', async (t) => {
  for (const hostile of ['result-fifo', 'result-zero']) {
    const { sb, l, scenario } = await agentSandbox();
    cleanupAfterSupervisors(t, sb);
    scenario(`${hostile},succeed`);
    const id = await l.create(hostile, '--accept', 'done');
    const s = await l.json('start', id);
    const outcome = await eventually(
      () =>
        existsSync(join(runDirOf(sb, s.value.run.id), 'outcome.json')) &&
        readJson(join(runDirOf(sb, s.value.run.id), 'outcome.json')),
      30_000,
      `the outcome of ${hostile}`,
    );
    t.equal(outcome.kind, 'interrupted', hostile);
    t.match(
      outcome.summary,
      hostile === 'result-fifo'
        ? /result contract: .* is a FIFO, not a regular file/
        : /result contract: .* is a device, not a regular file/,
    );
    const w = await l.json('wait', id, '--timeout', '30');
    t.equal(w.value.task.status, 'blocked', 'the next turn ran normally');
  }
});

test('an agent flooding its output: the turn completes, the run log is rotated, the review summary is bounded', async (t) => {
  for (const flood of ['flood', 'flood-noline']) {
    const { sb, l, scenario } = await agentSandbox();
    cleanupAfterSupervisors(t, sb);
    scenario(flood);
    const id = await l.create(flood, '--accept', 'done');
    const s = await l.json('start', id);
    const w = await l.json('wait', id, '--timeout', '120');
    t.equal(w.value.task.status, 'blocked', `${flood}: completed`);
    const dir = runDirOf(sb, s.value.run.id);
    const sizes = ['output.log', 'output.log.1'].map((f) =>
      existsSync(join(dir, f)) ? statSync(join(dir, f)).size : 0,
    );
    t.ok(
      sizes[1]! > 0 && sizes.every((n) => n <= 33 * 1024 * 1024),
      `${flood}: 80 MiB of output kept as ${sizes.join(' + ')} bytes`,
    );
    t.ok(w.value.task.turns.at(-1).content.length < 70 * 1024, `${flood}: the summary is bounded`);
  }
});
