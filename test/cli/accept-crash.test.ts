import t from 'tap';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { agentSandbox } from '../helpers/agent.js';
import { gitSync, killAcceptAt } from '../helpers/env.js';
import { ACCEPT_STEPS } from '../../lib/ops/accept/index.js';

// SIGKILL of a real accept process in each step of ACCEPT_STEPS (lib/ops/accept/index.ts). Each
// step is narrated before it runs; the fixture sets the port's pause between steps, so the
// kill lands after the narration and before the step's work. Whatever the step, the next
// command leaves the task consistent with the target, by the rule the step's entry names
// (its marker carries it): merged exactly once and complete, or not merged and back in blocked.

const STEPS: [string, 'blocked' | 'complete'][] = [
  ['preflight', 'blocked'],
  ['squash-merge into the target', 'blocked'],
  ['verify the target moved', 'complete'],
  ['clean up branch and worktree', 'complete'],
];

t.test('one kill per step of the table', async (t) => {
  t.same(
    STEPS.map(([step]) => step),
    ACCEPT_STEPS.map((s) => s.label),
  );
});

for (const [step, expected] of STEPS) {
  t.test(`SIGKILL during "${step}"`, async (t) => {
    const box = await agentSandbox();
    const { sb, l } = box;
    t.teardown(sb.cleanup);
    const id = await l.create('accept me', '--accept', 'done');
    await l('start', id);
    await l('wait', id, '--timeout', '30');
    const killedAt = await killAcceptAt(sb, id, `accept: ${step}`);
    t.equal(killedAt, 'SIGKILL');
    // The dead accept's marker names the step it died in and that step's rule, from the table.
    const marker = join(sb.dir, '.git', 'lazy', 'active', `${id}.json`);
    const entry = ACCEPT_STEPS.find((s) => s.label === step)!;
    const m = existsSync(marker) ? JSON.parse(readFileSync(marker, 'utf8')) : null;
    if (step === 'preflight') t.equal(m, null, 'killed before the claim: no marker');
    else t.same([m?.step, m?.if_killed], [entry.label, entry.ifKilled], 'the marker names the step and its rule');
    const v = (await l.json('show', id)).value;
    t.equal(v.status, expected, `the next command leaves it ${expected}`);
    const merges = gitSync(sb.dir, sb.env, ['log', '--format=%s', 'main'])
      .split('\n')
      .filter((s) => s.startsWith(`Accept task ${id}`));
    t.equal(merges.length, expected === 'complete' ? 1 : 0, 'the target agrees with the status');
    if (expected === 'complete' && step === 'verify the target moved') {
      t.same(
        v.changelog.slice(-3).map((c: any) => [c.status, c.actor]),
        [
          ['merging', 'human'],
          ['zombie', 'system'],
          ['complete', 'system'],
        ],
        'recovered through zombie by the system actor',
      );
    }
    if (step === 'squash-merge into the target') {
      t.same(
        v.changelog.slice(-2).map((c: any) => [c.status, c.trigger, c.actor]),
        [
          ['merging', 'accept', 'human'],
          ['blocked', 'merge_abort', 'system'],
        ],
        'the prior status was restored',
      );
    }
    const doctor = await l.json('doctor');
    t.same(
      doctor.value.findings.filter((f: any) => f.code === 'merging'),
      [],
      'nothing is left in merging',
    );
    if (expected === 'blocked') {
      const again = await l.json('accept', id, '--yes');
      t.equal(again.run.code, 0, 'a later accept completes it');
      t.equal(
        gitSync(sb.dir, sb.env, ['log', '--format=%s', 'main'])
          .split('\n')
          .filter((s) => s.startsWith(`Accept task ${id}`)).length,
        1,
        'merged exactly once',
      );
    }
  });
}
