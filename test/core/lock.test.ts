import t from 'tap';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clearStaleLocks, listLocks, locksDir, STALE_MS, withLock } from '../../lib/core/lock.js';
import { selfIdentity } from '../../lib/core/proc.js';
import { withClock } from '../../lib/core/clock.js';
import { TestClock } from '../helpers/clock.js';

// A lock's age is judged by the kernel's clock, which stamped it (proper-lockfile touches the lock's
// mtime while it is held): a test's clock moved forward must not make a live lock look stale to doctor.

t.test("a held lock stays held when lazy's clock jumps ahead; an old stamp is stale", async (t) => {
  const lazyDir = mkdtempSync(join(tmpdir(), 'lazy-lock-'));
  t.teardown(() => rmSync(lazyDir, { recursive: true, force: true }));
  const ahead = new TestClock();
  ahead.advance(10 * STALE_MS);
  await withLock(lazyDir, 'abcd2345', async () => {
    const [held] = withClock(ahead, () => listLocks(lazyDir));
    t.equal(held?.state, 'held', 'held, whatever the clock says');
    t.ok(held!.age_ms < STALE_MS, 'its age is the real age of its stamp');
    // The same lock as a holder that died before it recorded itself would leave it: stamped long ago, by the
    // kernel's clock, with no owner record to judge by.
    const then = new Date(Date.now() - 2 * STALE_MS);
    utimesSync(join(locksDir(lazyDir), 'abcd2345.lock'), then, then);
    t.equal(listLocks(lazyDir)[0]?.state, 'held', 'an old stamp whose recorded holder lives is still held');
    rmSync(join(locksDir(lazyDir), 'abcd2345.owner.json'));
    t.equal(listLocks(lazyDir)[0]?.state, 'stale', 'with no holder to judge by, a stamp older than the limit is stale');
  });
});

// Every command's reconcile clears the locks whose holders are gone (clearStaleLocks), by the judgement doctor
// makes: never one a live process holds, whatever its stamp or lazy's clock says.
t.test('clearStaleLocks removes the locks of dead holders and old unowned ones, never a live holder’s', async (t) => {
  const lazyDir = mkdtempSync(join(tmpdir(), 'lazy-lock-'));
  t.teardown(() => rmSync(lazyDir, { recursive: true, force: true }));
  const dir = locksDir(lazyDir);
  const lock = (name: string, owner?: object, ageMs = 0) => {
    mkdirSync(join(dir, `${name}.lock`), { recursive: true });
    const inode = statSync(join(dir, `${name}.lock`)).ino;
    if (owner) writeFileSync(join(dir, `${name}.owner.json`), JSON.stringify({ ...owner, inode }));
    const at = new Date(Date.now() - ageMs);
    utimesSync(join(dir, `${name}.lock`), at, at);
  };
  const self = selfIdentity();
  const dead = { ...self, pid: 999_999, start_ticks: 1 };
  lock('deadhold', dead); // a SIGKILLed writer: fresh stamp, dead holder
  lock('oldnoown', undefined, 2 * STALE_MS); // a holder killed before it wrote its record, long ago
  lock('newnoown'); // a holder that is writing its record right now
  lock('livestal', self, 2 * STALE_MS); // a live holder that stalled
  writeFileSync(join(dir, 'orphaned.owner.json'), JSON.stringify({ ...dead, inode: 1 })); // its lock was taken over
  const ahead = new TestClock();
  ahead.advance(100 * STALE_MS);
  const removed = withClock(ahead, () => clearStaleLocks(lazyDir)).map((l) => l.name);
  t.same(removed.sort(), ['deadhold', 'oldnoown']);
  t.same(readdirSync(dir).sort(), ['livestal.lock', 'livestal.owner.json', 'newnoown.lock']);
  await withLock(lazyDir, 'livestal2', async () => {
    t.same(clearStaleLocks(lazyDir), [], 'a lock held right now stays');
    t.ok(readdirSync(dir).includes('livestal2.lock'));
  });
});
