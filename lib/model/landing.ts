import { taskBranch } from '../core/names.js';
import type { TaskView } from './fold.js';

/** Where a task created on a detached HEAD builds and lands: it has no branch of its own to return to. */
export const DETACHED_TARGET = 'main';

/**
 * The branch a task's work builds on and its accepted work lands on: launch, resume, pair, the fleet's claim, the
 * merged sweep, review's diff, accept and submit all ask this one question. A subtask stacks on its parent's branch.
 * Otherwise the open session's base wins over the task's: it is the branch the worktree was made from (launch records
 * this very answer there), so a session recorded elsewhere or earlier keeps landing where it started. A task created
 * on a detached HEAD has no base: it builds on and merges into DETACHED_TARGET, as start's warning says
 * (test/workspace/branch.test.ts), whether its session is open or ended (a task closed and reopened lands where its
 * turns built; accept and submit once refused it with no_target once the session had ended, a code now gone).
 */
export const landingBranch = (v: Pick<TaskView, 'parent' | 'base' | 'session'>): string =>
  v.parent ? taskBranch(v.parent) : (v.session?.base ?? v.base ?? DETACHED_TARGET);
