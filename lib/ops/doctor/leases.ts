import type { TaskView } from '../../model/fold.js';
import { readActive } from '../../store/markers.js';
import { fetchObjects, remoteTips } from '../../sync/remote.js';
import { readLeases } from '../../fleet/lease.js';
import { pinnedTasks } from '../../fleet/pick.js';
import { leaseMsOf } from '../../fleet/deps.js';
import { now } from '../../core/clock.js';
import type { Pass } from './pass.js';
import { taskRef } from '../../core/names.js';

// Fleet tasks no worker can ever end: working under a lease that is unreadable, names another task,
// runs out later than any renewal could set (the year 2999), or is gone while the claim stands. Only a
// person can break such a claim (lazy stop --force); doctor names them. It asks the remote only when
// some task here works under a fleet claim.

export async function reportPinnedClaims(p: Pass, views: TaskView[], remotes: string[]): Promise<void> {
  // A turn with a marker here is this clone's own (a claim whose push may be in flight): its worker settles it.
  const claimed = views.filter(
    (v) => v.status === 'working' && v.schedule.claim && !readActive(p.app.repo.lazyDir, v.id),
  );
  if (!claimed.length) return;
  const leaseMs = leaseMsOf(await p.app.config());
  for (const remote of remotes) {
    let leases;
    let tips: Map<string, string>;
    try {
      tips = await remoteTips(p.app.repo, remote);
      if (!claimed.some((v) => tips.has(taskRef(v.id)))) continue;
      await fetchObjects(p.app.repo, remote, false);
      leases = await readLeases(p.app.store.reader.objects, tips);
    } catch (e) {
      p.findings.push({
        level: 'info',
        code: 'remote_unreachable',
        message: `remote ${remote}: could not read the fleet's leases (${(e as Error).message})`,
        details: { remote },
      });
      continue;
    }
    // Judged only where this clone's view is the remote's (a task finished there and not pulled yet is not pinned).
    const current = claimed.filter((v) => tips.get(taskRef(v.id)) === v.tip);
    for (const pin of pinnedTasks(current, leases, now(), leaseMs))
      p.findings.push({
        level: 'error',
        code: 'pinned_claim',
        message:
          `task ${pin.id} is working under a claim no worker can end (${pin.why} on ${remote}); ` +
          `lazy stop ${pin.id} --force breaks it`,
        details: { task: pin.id, remote, why: pin.why },
      });
  }
}
