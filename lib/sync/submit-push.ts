import { git } from '../core/git.js';
import { pushFailed, pushRejected } from '../core/errors.js';
import type { Repo } from '../core/repo.js';
import { taskRef } from '../store/layout.js';
import { isBehind, pushLines } from './remote.js';
import { BRANCH_NS } from './branches.js';

// One task's hand-off push (lazy submit): its work branch to refs/heads/lazy/<id> on the
// remote, where a forge opens pull requests from, and its task ref. Fast-forward only
// (no '+', never --force): a branch someone else moved on the remote is reported, not
// overwritten. --atomic: either every named ref moves or none does.

export interface SubmitPushed {
  /** Refs the remote took (moved or created); up-to-date ones are not listed. */
  moved: string[];
  up_to_date: string[];
}

export const branchRef = (id: string) => `${BRANCH_NS}${id}`;

/** Pushes refs/heads/lazy/<id> and, with `withTask`, refs/lazy/tasks/<id>, each to the same name. */
export async function pushSubmission(repo: Repo, remote: string, id: string, withTask: boolean): Promise<SubmitPushed> {
  const refs = [branchRef(id), ...(withTask ? [taskRef(id)] : [])];
  const r = await git(['push', '--porcelain', '--atomic', remote, ...refs.map((x) => `${x}:${x}`)], {
    cwd: repo.cwd,
    allowFail: true,
  });
  const out: SubmitPushed = { moved: [], up_to_date: [] };
  const refused: { ref: string; summary: string }[] = [];
  for (const { flag, ref, summary } of pushLines(r.stdout)) {
    if (flag === '=') out.up_to_date.push(ref);
    else if (flag === '!') refused.push({ ref, summary });
    else out.moved.push(ref);
  }
  if (r.code === 0 && !refused.length) return out;
  const behind = refused.find((x) => isBehind(x.summary));
  if (behind) {
    const what = behind.ref === branchRef(id) ? `branch lazy/${id}` : `task ${id}`;
    throw pushRejected(
      `${remote} has changes to ${what} that this clone lacks (git: ${behind.summary}); ` +
        `pull first (lazy pull ${remote}), then submit again: a teammate's work is never overwritten`,
      { remote, ref: behind.ref, git: behind.summary, refused },
    );
  }
  const why = refused.map((x) => `${x.ref}: ${x.summary}`).join('; ') || r.stderr.trim() || `exit ${r.code}`;
  throw pushFailed(`git push ${remote} refused the submission: ${why}`, { remote, refused, stderr: r.stderr.trim() });
}
