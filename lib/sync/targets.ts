import type { Repo } from '../core/repo.js';
import type { TaskReader } from '../store/read.js';
import { refreshIndex } from '../store/listing/index.js';
import { viewsOf } from './branches.js';
import type { TaskView } from '../model/fold.js';
import { submissionOf } from '../workspace/submission.js';

// A submitted task waits on a forge: its outcome shows on the remote's copy of its target
// branch, so every pull also asks for those targets (in the same ls-remote) and keeps their
// tracking refs fresh for the upstream settlement to read.

/**
 * The task refs this clone has (each row's tip is the ref's, checked by the refresh), and the targets recorded by `lazy submit` on every submitted one (read defensively:
 * the entry may lack one), from the listing index: one for-each-ref when it is fresh.
 */
export async function localTasks(
  repo: Repo,
  reader: TaskReader,
): Promise<{ refs: { id: string; tip: string; status: string }[]; targets: string[] }> {
  const { rows, bad } = await refreshIndex(repo.cwd, repo.lazyDir, reader);
  // A task the index cannot read has no status to settle by: '' (never submitted).
  const all = [
    ...rows.map((r) => ({ id: r.id, tip: r.tip, status: r.status as string })),
    ...bad.map((r) => ({ id: r.id, tip: r.tip, status: '' })),
  ];
  const ids = rows.filter((r) => r.status === 'submitted').map((r) => r.id);
  if (ids.length === 0) return { refs: all, targets: [] };
  return { refs: all, targets: submittedTargets((await viewsOf(reader, ids)).values()) };
}

/** The targets `lazy submit` recorded on the submitted ones among these views (checked as every submission is). */
export function submittedTargets(views: Iterable<TaskView>): string[] {
  const out = new Set<string>();
  for (const v of views) {
    // submissionOf reads the submit entry itself: an aborted accept's return to submitted records none.
    const target = v.status === 'submitted' ? submissionOf(v)?.target : undefined;
    if (target) out.add(target);
  }
  return [...out];
}
