import type { Repo } from '../core/repo.js';
import type { TaskReader } from '../store/read.js';
import { refreshIndex } from '../store/listing.js';
import { viewsOf } from './branches.js';
import { lastChange, type TaskView } from '../model/fold.js';

// A submitted task waits on a forge: its outcome shows on the remote's copy of its target
// branch, so every pull also asks for those targets (in the same ls-remote) and keeps their
// tracking refs fresh for the upstream settlement to read.

/** A name safe to put in a refspec: plain characters, no `..`, no leading `-` or `/`. */
export const safeBranch = (b: string) =>
  /^[A-Za-z0-9._/-]+$/.test(b) && !b.includes('..') && !b.startsWith('-') && !b.startsWith('/') && !b.endsWith('/');

/**
 * The task refs this clone has (each row's tip is the ref's, checked by the refresh), and the targets recorded by `lazy submit` on every submitted one (read defensively:
 * the entry may lack one), from the listing index: one for-each-ref when it is fresh.
 */
export async function localTasks(
  repo: Repo,
  reader: TaskReader,
): Promise<{ refs: { id: string; tip: string }[]; targets: string[] }> {
  const { rows, bad } = await refreshIndex(repo.cwd, repo.lazyDir, reader);
  const all = [...rows, ...bad].map((r) => ({ id: r.id, tip: r.tip }));
  const ids = rows.filter((r) => r.status === 'submitted').map((r) => r.id);
  if (ids.length === 0) return { refs: all, targets: [] };
  return { refs: all, targets: submittedTargets((await viewsOf(reader, ids)).values()) };
}

/** The targets `lazy submit` recorded on the submitted ones among these views (read defensively). */
export function submittedTargets(views: Iterable<TaskView>): string[] {
  const out = new Set<string>();
  for (const v of views) {
    if (v.status !== 'submitted') continue;
    const target = lastChange(v, 'submitted')?.details?.target;
    if (typeof target === 'string' && safeBranch(target)) out.add(target);
  }
  return [...out];
}
