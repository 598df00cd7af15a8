import t, { type Test } from 'tap';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { agentSandbox, eventually, reviewed } from '../helpers/agent.js';
import { gitSync, LAZY } from '../helpers/env.js';
import { background } from '../helpers/procs.js';

// An accept whose `git update-ref` is slow (a reference-transaction hook holds it) is
// SIGKILLed alone: its git child lives on. The next command rolls the task back (nothing
// has landed), then the orphan lands the squash on main. A later command completes the task
// with that commit (lib/reconcile/late-accept.ts); doctor names the case it finds.

async function lateLanding(t: Test, o: { unrecorded?: boolean; fails?: boolean; movedOn?: boolean } = {}) {
  const box = await agentSandbox();
  const { sb, l } = box;
  t.teardown(sb.cleanup);
  const id = await reviewed(box, 'accept me');
  const gate = join(sb.home, 'gate');
  // Holds the first move of main (in "prepared", with main.lock taken) until the test says go.
  const hook = join(sb.dir, '.git', 'hooks', 'reference-transaction');
  writeFileSync(
    hook,
    `#!/bin/sh\n[ "$1" = prepared ] || exit 0\ngrep -q ' refs/heads/main$' || exit 0\n` +
      `[ -e '${gate}.used' ] && exit 0\ntouch '${gate}.used'\n` +
      `while [ ! -e '${gate}.go' ]; do sleep 0.05; done\n[ ! -e '${gate}.fail' ]\n`,
  );
  chmodSync(hook, 0o755);
  const accept = background(process.execPath, [LAZY, 'accept', id, '--yes'], {
    cwd: sb.dir,
    env: sb.env,
    stdio: 'ignore',
  });
  await eventually(() => existsSync(`${gate}.used`), 60_000, 'the update-ref held by the hook');
  accept.kill('SIGKILL'); // the lazy process only: its git child keeps waiting in the hook
  await new Promise((res) => (accept.exitCode !== null || accept.signalCode ? res(null) : accept.on('exit', res)));
  // An accept from before the marker named its commit: the trailer and the tree are the evidence.
  const marker = join(sb.dir, '.git', 'lazy', 'active', `${id}.json`);
  if (o.unrecorded)
    writeFileSync(marker, JSON.stringify({ ...JSON.parse(readFileSync(marker, 'utf8')), squash: undefined }));
  const rolled = (await l.json('show', id)).value;
  t.equal(rolled.status, 'blocked', 'the next command rolled it back: nothing had landed');
  t.equal(rolled.changelog.at(-1).trigger, 'merge_abort');
  t.match(rolled.changelog.at(-1).details, { target: 'main' }, 'the rollback names the target');
  if (o.movedOn) {
    t.equal((await l('unblock', id, '-m', 'one more thing')).code, 0);
    await l('wait', id, '--timeout', '30');
  }
  if (o.fails) writeFileSync(`${gate}.fail`, '');
  writeFileSync(`${gate}.go`, '');
  const landed = () =>
    gitSync(sb.dir, sb.env, ['log', '--format=%H %s', 'main'])
      .split('\n')
      .find((s) => s.includes(` Accept task ${id}`));
  if (o.fails) {
    await eventually(() => !existsSync(join(sb.dir, '.git', 'refs', 'heads', 'main.lock')), 60_000, 'git gave up');
    t.notOk(landed(), 'nothing landed');
    return { sb, l, id, commit: '' };
  }
  await eventually(() => !!landed(), 60_000, 'the orphaned git child lands the squash');
  const commit = landed()!.split(' ')[0]!;
  t.equal(
    rolled.changelog.at(-1).details.squash,
    o.unrecorded ? undefined : commit,
    'the rollback names the commit in flight',
  );
  return { sb, l, id, commit };
}

t.test('a squash that lands after its rollback completes the task', async (t) => {
  const { sb, l, id, commit } = await lateLanding(t);
  const v = (await l.json('show', id)).value;
  t.equal(v.status, 'complete', 'the next command completes it');
  t.same(
    v.changelog.slice(-2).map((c: any) => [c.status, c.trigger, c.actor]),
    [
      ['zombie', 'zombie', 'system'],
      ['complete', 'merge_done', 'system'],
    ],
  );
  t.equal(v.changelog.at(-1).details.commit, commit, 'with the commit that landed');
  t.equal(gitSync(sb.dir, sb.env, ['branch', '--list', `lazy/${id}`]).trim(), '', 'its branch is gone');
  const doctor = (await l.json('doctor')).value;
  t.same(
    doctor.findings.filter((f: any) => f.code === 'accept_landed_after_rollback'),
    [],
    'nothing left for doctor',
  );
});

t.test('without a recorded commit, the trailer commit whose tree takes the whole branch is the evidence', async (t) => {
  const { l, id, commit } = await lateLanding(t, { unrecorded: true });
  const v = (await l.json('show', id)).value;
  t.equal(v.status, 'complete');
  t.equal(v.changelog.at(-1).details.commit, commit);
});

t.test('a git child that gave up leaves the rollback standing', async (t) => {
  const { sb, l, id } = await lateLanding(t, { fails: true });
  gitSync(sb.dir, sb.env, ['commit', '--allow-empty', '-q', '-m', 'main moves on']); // the sweep looks again
  t.equal((await l.json('show', id)).value.status, 'blocked', 'still blocked: nothing landed');
  const doctor = (await l.json('doctor')).value;
  t.same(
    doctor.findings.filter((f: any) => f.code === 'accept_landed_after_rollback'),
    [],
  );
});

t.test('a task that moved on after the rollback is not completed; doctor names the landing', async (t) => {
  const { l, id, commit } = await lateLanding(t, { movedOn: true });
  const v = (await l.json('show', id)).value;
  t.equal(v.status, 'blocked', 'its newer turn stands');
  t.not(v.changelog.at(-1).trigger, 'merge_done');
  const d = await l.json('doctor');
  t.match(
    d.value.findings.filter((f: any) => f.code === 'accept_landed_after_rollback'),
    [{ level: 'warning', details: { task: id, commit, current: false } }],
  );
  const fixed = await l.json('doctor', '--fix');
  t.equal((await l.json('show', id)).value.status, 'blocked', '--fix does not complete it');
  t.notMatch(fixed.value.fixed.join('\n'), new RegExp(`completed ${id}`));
});

t.test('doctor names a late landing the sweep missed, and --fix completes it', async (t) => {
  const { sb, l, id, commit } = await lateLanding(t);
  // A sweep that saw main's new tip without judging it: the next command does not look again.
  const tips = join(sb.dir, '.git', 'lazy', 'target-tips.json');
  writeFileSync(tips, JSON.stringify({ targets: { main: commit }, packed: null }));
  const d = await l.json('doctor');
  const found = d.value.findings.filter((f: any) => f.code === 'accept_landed_after_rollback');
  t.match(found, [{ level: 'error', details: { task: id, commit, target: 'main', current: true } }]);
  t.equal(d.value.healthy, false);
  t.equal((await l.json('show', id)).value.status, 'blocked', 'doctor alone changes nothing');
  const fixed = await l.json('doctor', '--fix');
  t.match(fixed.value.fixed.join('\n'), new RegExp(`completed ${id}`));
  t.equal((await l.json('show', id)).value.status, 'complete');
});
