import { git } from '../../core/git.js';
import { anyTrackingRef, branchRef, remoteTrackingRef, trackingRemoteOf } from '../../core/names.js';

// Where a task's branch stands against the copy a pull last saw on a remote
// (refs/remotes/<remote>/lazy/<id>): what `show` names when the two parted.

export interface BranchStanding {
  /** none: no tracking copy; missing: only the remote has it; else local against remote. */
  state: 'none' | 'missing' | 'equal' | 'ahead' | 'behind' | 'diverged';
  remote: string | null;
  /** Commits only the local branch has, and only the remote's copy has. */
  ahead: number;
  behind: number;
}

/** One for-each-ref; a rev-list only when both sides exist and differ. */
export async function branchStanding(cwd: string, id: string): Promise<BranchStanding> {
  const r = await git(['for-each-ref', '--format=%(objectname) %(refname)', branchRef(id), anyTrackingRef(id)], {
    cwd,
    allowFail: true,
  });
  let local: string | null = null;
  let remote: { name: string; tip: string } | null = null;
  for (const line of r.stdout.split('\n')) {
    const [tip, ref] = line.split(' ');
    if (!tip || !ref) continue;
    if (ref === branchRef(id)) local = tip;
    else if (!remote || ref.startsWith(remoteTrackingRef('origin', '')))
      remote = { name: trackingRemoteOf(ref, id)!, tip };
  }
  if (!remote) return { state: 'none', remote: null, ahead: 0, behind: 0 };
  if (!local) return { state: 'missing', remote: remote.name, ahead: 0, behind: 0 };
  if (local === remote.tip) return { state: 'equal', remote: remote.name, ahead: 0, behind: 0 };
  const c = await git(['rev-list', '--left-right', '--count', `${local}...${remote.tip}`], { cwd, allowFail: true });
  const [ahead = 0, behind = 0] = c.stdout.trim().split(/\s+/).map(Number);
  const state = ahead && behind ? 'diverged' : ahead ? 'ahead' : 'behind';
  return { state, remote: remote.name, ahead, behind };
}

/**
 * The remote a pull brought the branch's head from, or null: the latest move of `lazy/<id>` set it to `head` as
 * lazy pull does (its update-ref, or its fast-forward in the task worktree to that remote's copy).
 */
export async function pulledFrom(cwd: string, id: string, head: string): Promise<string | null> {
  const r = await git(['log', '-g', '-1', '--format=%H%x00%gs', branchRef(id)], { cwd, allowFail: true });
  const [sha, subject = ''] = r.stdout.trim().split('\0');
  if (!head || sha !== head) return null;
  const pulled = /^lazy: pull from (\S+)$/.exec(subject)?.[1];
  if (pulled) return pulled;
  if (!/^merge [^\s:]+: Fast-forward$/.test(subject)) return null;
  const copies = await git(['for-each-ref', '--format=%(objectname) %(refname)', anyTrackingRef(id)], {
    cwd,
    allowFail: true,
  });
  for (const line of copies.stdout.split('\n')) {
    const [tip, ref] = line.split(' ');
    if (tip === head && ref) return trackingRemoteOf(ref, id);
  }
  return null;
}
