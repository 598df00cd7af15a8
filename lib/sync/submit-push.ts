import { git } from '../core/git.js';
import { pushFailed, pushRejected } from '../core/errors.js';
import type { Repo } from '../core/repo.js';
import { isBehind, pushLines } from './remote.js';
import { branchRef, sameNameSpec, taskBranch, taskRef } from '../core/names.js';

// One task's hand-off push (lazy submit): its work branch to refs/heads/lazy/<id> on the
// remote, where a forge opens pull requests from, and its task ref. Fast-forward only
// (no '+', never --force): a branch someone else moved on the remote is reported, not
// overwritten. --atomic: either every named ref moves or none does.

/** Pushes refs/heads/lazy/<id> and refs/lazy/tasks/<id>, each to the same name; throws what the remote refused. */
export async function pushSubmission(repo: Repo, remote: string, id: string): Promise<void> {
  const refs = [branchRef(id), taskRef(id)];
  const r = await git(['push', '--porcelain', '--atomic', remote, ...refs.map(sameNameSpec)], {
    cwd: repo.cwd,
    allowFail: true,
  });
  const refused = pushLines(r.stdout)
    .filter((l) => l.flag === '!')
    .map(({ ref, summary }) => ({ ref, summary }));
  if (r.code === 0 && !refused.length) return;
  const behind = refused.find((x) => isBehind(x.summary));
  if (behind) {
    const what = behind.ref === branchRef(id) ? `branch ${taskBranch(id)}` : `task ${id}`;
    throw pushRejected(
      `${remote} has changes to ${what} that this clone lacks (git: ${behind.summary}); ` +
        `pull first (lazy pull ${remote}), then submit again: a teammate's work is never overwritten`,
      { remote, ref: behind.ref, git: behind.summary, refused },
    );
  }
  const why = refused.map((x) => `${x.ref}: ${x.summary}`).join('; ') || r.stderr.trim() || `exit ${r.code}`;
  throw pushFailed(`git push ${remote} refused the submission: ${why}`, { remote, refused, stderr: r.stderr.trim() });
}
