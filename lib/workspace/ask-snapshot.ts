import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { git } from '../core/git.js';
import { stashEntries } from './stash.js';

// An ask is read-only, but an agent may still write. The worktree's uncommitted state is
// snapshotted (as trees, nothing is stored in a ref) when the ask starts; when it ends,
// whatever differs from that snapshot is set aside as a stash entry holding only the ask's
// changes, and the worktree and index go back to the snapshot. Work that was uncommitted
// before the ask stays where it was and is not counted as the ask's.

/** The worktree before an ask: HEAD, the index as a tree, and every non-ignored file as a tree. */
export interface WorktreeSnapshot {
  head: string;
  index: string;
  tree: string;
}

/**
 * What an ask left behind and where it went (`stash` is null when it only staged files); `note` says so to a person.
 */
export interface SetAside {
  stash: string | null;
  ref: string | null;
  message: string;
  files: string[];
  note: string;
}

const run = async (cwd: string, args: string[], env?: NodeJS.ProcessEnv) =>
  (await git(args, { cwd, env })).stdout.trim();

/** The worktree's files as a tree, through a throwaway copy of its index (the real index is untouched). */
async function worktreeTree(cwd: string): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'lazy-ask-'));
  try {
    const index = await run(cwd, ['rev-parse', '--path-format=absolute', '--git-path', 'index']);
    const tmp = join(dir, 'index');
    // A copy keeps the stat cache, so only files changed since the last index write are hashed.
    if (existsSync(index)) copyFileSync(index, tmp);
    const env = { GIT_INDEX_FILE: tmp };
    await run(cwd, ['add', '-A'], env);
    return await run(cwd, ['write-tree'], env);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Null when the worktree cannot be snapshotted (an unmerged index, say): the ask then sets nothing aside. */
export async function snapshotWorktree(cwd: string): Promise<WorktreeSnapshot | null> {
  try {
    return {
      head: await run(cwd, ['rev-parse', 'HEAD']),
      index: await run(cwd, ['write-tree']),
      tree: await worktreeTree(cwd),
    };
  } catch {
    return null;
  }
}

const askStashMessage = (task: string, run: string) =>
  `lazy ask ${task}: what ask run ${run} left in the task worktree`;

/**
 * Sets aside what changed since `before` and restores it. When the ask committed on a
 * clean worktree, its commits stay (accept refuses them as unreviewed) and the worktree
 * goes back to clean at the new head; otherwise it goes back to the snapshot itself.
 */
export async function setAsideSince(
  cwd: string,
  before: WorktreeSnapshot,
  o: { task: string; run: string },
): Promise<SetAside | null> {
  const head = await run(cwd, ['rev-parse', 'HEAD']);
  const leftIndex = (await git(['write-tree'], { cwd, allowFail: true })).stdout.trim() || null;
  // Staging everything makes the ask's new files part of the index, so the reset below removes them.
  await run(cwd, ['add', '-A']);
  const after = { index: leftIndex, tree: await run(cwd, ['write-tree']) };
  const headTree = await run(cwd, ['rev-parse', `${head}^{tree}`]);
  const cleanBefore =
    before.index === before.tree && before.tree === (await run(cwd, ['rev-parse', `${before.head}^{tree}`]));
  const target = head !== before.head && cleanBefore ? { index: headTree, tree: headTree } : before;
  const changed = after.tree !== target.tree;
  if (!changed && after.index === target.index) {
    await run(cwd, ['read-tree', '-m', target.index]);
    return null;
  }
  const message = askStashMessage(o.task, o.run);
  let stash: string | null = null;
  if (changed) {
    // A stash whose first parent is the snapshot: `git stash show -p` is exactly the ask's change.
    const base = await run(cwd, [
      'commit-tree',
      target.tree,
      '-p',
      head,
      '-m',
      `lazy: the task worktree before ask run ${o.run}`,
    ]);
    const index = await run(cwd, [
      'commit-tree',
      after.index ?? after.tree,
      '-p',
      base,
      '-m',
      `index on ask run ${o.run}`,
    ]);
    stash = await run(cwd, ['commit-tree', after.tree, '-p', base, '-p', index, '-m', message]);
    await run(cwd, ['stash', 'store', '-m', message, stash]);
  }
  const [from, to] = changed ? [target.tree, after.tree] : [target.index, after.index ?? after.tree];
  const files = (await run(cwd, ['diff', '--name-only', '-z', '--no-renames', from, to])).split('\0').filter(Boolean);
  await run(cwd, ['read-tree', '-u', '--reset', target.tree]);
  await run(cwd, ['read-tree', '-m', target.index]);
  const ref = stash ? await stashRef(cwd, stash) : null;
  return { stash, ref, message, files, note: noteOf(files, stash, ref, cwd) };
}

function noteOf(files: string[], stash: string | null, ref: string | null, cwd: string): string {
  const list = `${files.slice(0, 10).join(', ')}${files.length > 10 ? `, and ${files.length - 10} more` : ''}`;
  if (!stash) return `the ask staged ${list}; unstaged again (the files are unchanged)`;
  return (
    `the ask left changes in ${list}; they were removed from the task worktree and kept in stash ${stash}` +
    `${ref ? ` (${ref})` : ''}, never committed: see them with git stash show -p ${stash}, ` +
    `take them back with git -C ${cwd} stash apply ${stash}`
  );
}

async function stashRef(cwd: string, commit: string): Promise<string | null> {
  return (await stashEntries(cwd)).find((e) => e.commit === commit)?.ref ?? null;
}
