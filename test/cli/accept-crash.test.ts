import t from 'tap';
import { agentSandbox } from '../helpers/agent.js';
import { gitSync, LAZY } from '../helpers/env.js';
import { background } from '../helpers/procs.js';

// SIGKILL of accept at each phase. Each phase is narrated before it runs; with
// LAZY_PHASE_DELAY_MS the kill lands after the narration and before the phase's work.
// Whatever the phase, the next command leaves the task consistent with the target:
// merged exactly once and complete, or not merged and back in blocked.

const PHASES: [string, 'blocked' | 'complete'][] = [
  ['preflight', 'blocked'],
  ['squash-merge into the target', 'blocked'],
  ['verify the target moved', 'complete'],
  ['clean up branch and worktree', 'complete'],
];

for (const [phase, expected] of PHASES) {
  t.test(`SIGKILL during "${phase}"`, async (t) => {
    const box = await agentSandbox();
    const { sb, l } = box;
    t.teardown(sb.cleanup);
    const id = await l.create('accept me', '--accept', 'done');
    await l('start', id);
    await l('wait', id, '--timeout', '30');
    const killedAt = await new Promise<string>((res) => {
      const c = background(process.execPath, [LAZY, 'accept', id, '--yes'], {
        cwd: sb.dir,
        env: { ...sb.env, LAZY_PHASE_DELAY_MS: '1500' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      c.stdout.on('data', (d) => {
        out += d;
        if (out.includes(`accept: ${phase}`)) c.kill('SIGKILL');
      });
      c.on('close', (_code, signal) => res(signal ?? 'exited'));
    });
    t.equal(killedAt, 'SIGKILL');
    const v = (await l.json('show', id)).value;
    t.equal(v.status, expected, `the next command leaves it ${expected}`);
    const merges = gitSync(sb.dir, sb.env, ['log', '--format=%s', 'main'])
      .split('\n')
      .filter((s) => s.startsWith(`Accept task ${id}`));
    t.equal(merges.length, expected === 'complete' ? 1 : 0, 'the target agrees with the status');
    if (expected === 'complete' && phase === 'verify the target moved') {
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
    if (phase === 'squash-merge into the target') {
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
