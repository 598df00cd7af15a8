import t from 'tap';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { liveness, selfIdentity, thisHost } from '../../lib/core/proc.js';
import { deadOrSilent, SILENT_MS } from '../../lib/reconcile/dead-run.js';
import { runDir, runFiles, type RunRecord } from '../../lib/agents/runs.js';

// Whose processes this process can judge (issue 27): within one kernel boot and pid namespace, any (the host
// name aside); a supervisor beyond them (a container recreated with its clone, one beside this one) by its
// heartbeat alone, and never by a pid that means something else here.

t.test('liveness: the host name aside, a pid is judged only within its boot and pid namespace', async (t) => {
  const me = selfIdentity();
  t.equal(liveness(me), 'alive');
  t.equal(liveness({ ...me, host: 'old-name' }), 'alive', 'an older host name (LAZY_HOST changed): still checked');
  if (me.pid_ns) t.equal(liveness({ ...me, pid_ns: 'pid:[1]' }), 'unknown', 'another pid namespace: not checkable');
  t.equal(liveness({ ...me, boot_id: 'another-boot' }), 'dead', 'this host before its last reboot: gone');
  t.equal(liveness({ ...me, host: 'elsewhere', boot_id: 'another-boot' }), 'unknown', 'another machine: not ours');
  t.equal(liveness({ ...me, host: 'elsewhere', boot_id: null }), 'unknown', 'another host, no boot to compare');
  t.equal(thisHost() === me.host, true);
});

t.test('a supervisor nobody here can check is gone once its heartbeat is a minute silent', async (t) => {
  const lazyDir = mkdtempSync(join(tmpdir(), 'lazy-deadrun-'));
  t.teardown(() => rmSync(lazyDir, { recursive: true, force: true }));
  const me = selfIdentity();
  const foreign = { ...me, pid_ns: 'pid:[1]', pid: 1 };
  const rec = { id: 'rrrr0001', task: 'tttt0001', supervisor: foreign, launcher: foreign } as unknown as RunRecord;
  const beat = runFiles(runDir(lazyDir, rec.id)).heartbeat;
  mkdirSync(runDir(lazyDir, rec.id), { recursive: true });
  const gone = deadOrSilent(lazyDir, rec);
  t.equal(gone(foreign), false, 'no heartbeat yet: left alone');
  writeFileSync(beat, '');
  t.equal(gone(foreign), false, 'a fresh heartbeat: alive somewhere');
  const old = (Date.now() - SILENT_MS - 5000) / 1000;
  utimesSync(beat, old, old);
  t.equal(gone(foreign), true, 'silent for over a minute: gone');
  t.equal(gone({ ...foreign }), false, 'only the supervisor is judged by its heartbeat, not another process');
  t.equal(deadOrSilent(lazyDir, rec)(me), false, 'a process this one can check is judged by its identity');
});
