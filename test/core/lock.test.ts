import t from 'tap';
import { mkdtempSync, rmSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listLocks, locksDir, STALE_MS, withLock } from '../../lib/core/lock.js';
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
    // The same lock as a process that stalled would leave it: stamped long ago, by the kernel's clock.
    const then = new Date(Date.now() - 2 * STALE_MS);
    utimesSync(join(locksDir(lazyDir), 'abcd2345.lock'), then, then);
    t.equal(listLocks(lazyDir)[0]?.state, 'stale', 'a stamp older than the stale limit is stale');
  });
});
