import type { Store } from '../../store/store.js';
import type { Config } from '../../store/config/index.js';
import { commitAll, headOf } from '../../workspace/worktree.js';
import { branchDiff, branchViolations } from '../../workspace/review.js';
import { protectedPoints } from '../../model/fold.js';
import type { RunRecord } from '../runs.js';
import type { Outcome, Review } from './outcome/types.js';

// What a turn leaves once its agent ended normally: the work committed, the review's facts, and the
// protected-file violations of the branch.

export interface Finished {
  review: Review;
  risks?: string[];
}

/** After a normal end: commit what the agent left uncommitted, then collect the review facts. */
export async function finishWork(rec: RunRecord, note: (m: string) => void): Promise<Finished> {
  // An ask is read-only: whatever it left behind is not committed for it.
  // A failed auto-commit (a stale index.lock, say) is a risk the review names, not a silent loss.
  const risks: string[] = [];
  const auto =
    rec.kind === 'ask'
      ? null
      : await commitAll(
          rec.worktree,
          `lazy: work of turn ${rec.turn} on task ${rec.task}\n\nLazy-Task: ${rec.task}\nLazy-Run: ${rec.id}\n`,
        ).catch((e: Error) => {
          risks.push(`lazy could not commit the work the agent left uncommitted: ${e.message}`);
          note(risks[0]!);
          return null;
        });
  if (auto) note(`committed the agent's uncommitted changes as ${auto.slice(0, 10)}`);
  const head = await headOf(rec.worktree);
  const diff = await branchDiff(rec.worktree, rec.base, head);
  return { review: { ...diff, auto_commit: auto }, risks: risks.length ? risks : undefined };
}

/**
 * Invariant: a turn that parks the task (every end but an interruption) re-derives the
 * protected-file violations from what the branch holds against its fork point, not from
 * what this turn did: commits of an earlier crashed or stopped turn count too.
 */
export async function withViolations(
  ctx: { store: Store; config: Config },
  rec: RunRecord,
  o: Outcome,
  note: (m: string) => void,
): Promise<Outcome> {
  const globs = ctx.config.protected ?? [];
  if (o.kind === 'interrupted' || !globs.length) return o;
  try {
    const head = o.review?.head ?? (await headOf(rec.worktree));
    const points = protectedPoints((await ctx.store.read(rec.task)).docs);
    const violations = await branchViolations(rec.worktree, rec.base, head, globs, points);
    return violations.length ? { ...o, violations } : o;
  } catch (e) {
    // Accept checks the squash against the protected globs again, so nothing lands unseen.
    note(`could not check protected files: ${(e as Error).message}`);
    return o;
  }
}
