import { notAllowed, pushRejected } from '../../core/errors.js';
import { thisHost } from '../../core/proc.js';
import { assertAllowed } from '../../model/table.js';
import { lastChange, type TaskView } from '../../model/fold.js';
import { casRef } from '../../store/refs.js';
import { pull } from '../../sync/sync.js';
import { defaultRemote } from '../../sync/remote.js';
import { casPush, type RefUpdate } from '../../fleet/claim/push.js';
import { readLease } from '../../fleet/lease.js';
import { syncDeps } from '../sync.js';
import type { App } from '../app.js';
import { leaseRef, taskRef } from '../../core/names.js';

// `lazy stop <id> --force`: a person breaks a claim no worker can end, a turn of another clone or
// machine that is gone, or held by a lease nobody can renew (unreadable, another task's, valid until
// 2999). The task goes to interrupted here, and that move and the lease's deletion are pushed in one
// compare-and-swap, so a worker that still holds the claim finds it lost and records nothing. What the
// dead run left on its branch is kept: the branch is not touched.

export interface BrokenClaim {
  task: TaskView;
  remote: string | null;
  /** The lease deleted on the remote (its commit), when there was one. */
  lease: string | null;
}

export async function breakClaim(app: App, id: string, run: string | null): Promise<BrokenClaim> {
  const remote = await defaultRemote(app.repo).catch(() => null);
  const tips = remote ? (await pull(syncDeps(app, false), remote)).tips : new Map<string, string>();
  const lease = tips.get(leaseRef(id)) ?? null;
  const held = lease ? await readLease(app.store.reader.objects, lease) : null;
  const before = (await app.store.view(id)).tip;
  const { view } = await app.store.mutate(id, 'stop', (d) => {
    assertAllowed('stop', d.view);
    // The pull may have brought a fresh claim (a live worker took the task over): that one is not the person's to break.
    if (d.view.current_run !== run)
      throw notAllowed(
        'stop',
        d.view.status,
        d.view.available_actions,
        `task ${id} moved on while its claim was being broken (now run ${d.view.current_run ?? 'none'}); nothing changed: look again (lazy show ${id})`,
        { task: id, run: d.view.current_run },
      );
    const last = lastChange(d.view, 'working');
    d.transition('interrupted', 'stop', 'stopped by the user, breaking its claim', {
      ...(d.view.current_run ? { run: d.view.current_run } : {}),
      host: thisHost(),
      details: {
        user_stopped: true,
        claim_broken: {
          host: held?.host ?? last?.host ?? null,
          run: held?.run ?? d.view.current_run ?? null,
          ...(lease ? { lease, until: held?.until ?? null } : {}),
        },
      },
    });
  });
  if (!remote || !tips.has(taskRef(id))) return { task: view, remote, lease: null };
  const updates: RefUpdate[] = [{ ref: taskRef(id), next: view.tip, expected: tips.get(taskRef(id))! }];
  if (lease) updates.push({ ref: leaseRef(id), next: null, expected: lease });
  const undo = () => casRef(app.repo.cwd, taskRef(id), before, view.tip, `lazy: stop ${id}: not pushed`);
  let v;
  try {
    v = await casPush(app.repo, remote, updates);
  } catch (e) {
    await undo(); // unreachable: nothing changes here either
    throw e;
  }
  if (!v.ok) {
    await undo();
    throw pushRejected(
      `task ${id}: the remote moved while its claim was broken (${v.stale.join(', ') || 'busy'}); nothing changed, ` +
        `run lazy stop ${id} --force again`,
      { task: id, remote, refs: v.stale },
    );
  }
  return { task: view, remote, lease };
}
