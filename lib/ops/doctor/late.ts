import type { TaskView } from '../../model/fold.js';
import { completeLateAccept, landedAfterRollback } from '../../reconcile/late-accept.js';
import type { Pass } from './pass.js';

// An accept rolled back while its orphaned git child was still moving the target, which then
// landed (lib/reconcile/late-accept.ts). The merged-branch sweep completes such a task when the
// target's move is seen; one found here was missed (or has moved on since the rollback).

export async function repairLateAccepts(p: Pass, views: TaskView[]): Promise<void> {
  for (const v of views) {
    const late = await landedAfterRollback(p.app.repo.cwd, v);
    if (!late) continue;
    const where = `${late.target} as ${late.commit.slice(0, 10)}`;
    if (late.current && p.fix) {
      const done = await completeLateAccept({ repo: p.app.repo, store: p.app.store, config: p.app.config }, v, late);
      if (done) {
        p.fixed.push(`completed ${v.id}: ${done.detail}`);
        continue;
      }
    }
    p.findings.push({
      level: late.current ? 'error' : 'warning',
      code: 'accept_landed_after_rollback',
      message: late.current
        ? `task ${v.id} is ${v.status}, but its rolled-back accept landed on ${where} afterwards; ` +
          `lazy doctor --fix completes it`
        : `task ${v.id}'s rolled-back accept landed on ${where} afterwards, and the task has moved on ` +
          `(${v.status}, or its branch holds work that commit lacks): that work is already on ${late.target}`,
      details: { task: v.id, target: late.target, commit: late.commit, status: v.status, current: late.current },
    });
  }
}
