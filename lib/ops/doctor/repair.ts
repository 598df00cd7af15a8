import { readAllArchived } from '../../store/archive/map.js';
import { existsSync } from 'node:fs';
import { git } from '../../core/git.js';
import { placeOf } from '../../core/place.js';
import { LazyError } from '../../core/errors.js';
import { processesIn, thisHost } from '../../core/proc.js';
import { lastChange, type TaskView } from '../../model/fold.js';
import type { RefTip } from '../../store/refs.js';
import { readConfigAt } from '../../store/config/index.js';
import { parseCommit } from '../../store/objects.js';
import { indexedIds } from '../../store/listing/index.js';
import { danglingTaskCommits, firstValidTip, reflogTaskIds, reflogTips, restoreRef } from '../../store/recover.js';
import { listActive } from '../../store/markers.js';
import { branchGone, sessionRanHere } from '../../workspace/branch/index.js';
import { isTerminal } from '../../model/status.js';
import { branchExists, dirtyFiles, removeWorktree, worktreePath } from '../../workspace/worktree.js';
import { deleteBranch } from '../../workspace/merge.js';
import { acceptStashes, stashAdvice } from '../../workspace/stash.js';
import type { App } from '../app.js';
import { HELD, type Pass } from './pass.js';
import { CONFIG_REF, headRef, taskBranch, taskRef } from '../../core/names.js';
import { lastAccept } from '../../model/details.js';

// What doctor repairs beyond locks and temp files: damaged lazy refs (restored to their
// last good tip by compare-and-swap), leftovers of an accept that died after its
// complete commit, turns whose bookkeeping was deleted, and stashes an accept kept.
// Each check reports; with --fix it repairs what it can verify and explains the rest.

/** A task ref that is unreadable, or gone while lazy still knows of the task: back to its newest valid commit. */
export async function repairTaskRefs(p: Pass, refs: RefTip[], bad: Map<string, LazyError>): Promise<void> {
  const { repo, store } = p.app;
  const existing = new Set(refs.map((r) => r.id));
  let dangling: Map<string, string[]> | undefined;
  const candidates = async (id: string, skip: string | null) => {
    dangling ??= await danglingTaskCommits(repo.cwd, store.reader);
    return [...reflogTips(repo.commonDir, taskRef(id)), ...(dangling.get(id) ?? [])].filter((oid) => oid !== skip);
  };
  for (const [id, err] of bad) {
    const seen = refs.find((r) => r.id === id)!.tip;
    const good = await firstValidTip(store.reader, id, await candidates(id, seen));
    if (!good) {
      p.findings.push({
        level: 'error',
        code: err.code,
        message: `${err.message} (no earlier valid commit of this task was found to restore)`,
        details: { task: id, ...err.details },
      });
      continue;
    }
    if (p.fix && (await restoreRef(repo.cwd, taskRef(id), good, seen))) {
      p.fixed.push(`restored ${taskRef(id)} to its last good tip ${good.slice(0, 10)} (it held ${seen.slice(0, 10)})`);
      continue;
    }
    p.findings.push({
      level: 'error',
      code: 'task_ref_damaged',
      message: `${err.message}; lazy doctor --fix restores its last good tip ${good.slice(0, 10)}`,
      details: { task: id, ref: taskRef(id), tip: seen, restore: good },
    });
  }
  dangling ??= await danglingTaskCommits(repo.cwd, store.reader);
  const seenOnRef = new Set([...indexedIds(repo.lazyDir), ...reflogTaskIds(repo.commonDir)]);
  // An archived task has no live ref on purpose: it is not deleted (lazy archive).
  const archived = await readAllArchived(store.reader.objects);
  const lost = [...new Set([...seenOnRef, ...dangling.keys()])].filter((x) => !existing.has(x) && !archived.has(x));
  for (const id of lost.sort()) {
    const good = await firstValidTip(store.reader, id, await candidates(id, null));
    // A lone creation commit no ref ever named is a create killed before its ref was written, not a loss.
    if (!good || (!seenOnRef.has(id) && (await isRoot(p.app, good)))) continue;
    if (p.fix && (await restoreRef(repo.cwd, taskRef(id), good, null))) {
      p.fixed.push(`restored deleted ${taskRef(id)} at its last good tip ${good.slice(0, 10)}`);
      continue;
    }
    p.findings.push({
      level: 'error',
      code: 'task_ref_deleted',
      message:
        `task ${id} lost its ref ${taskRef(id)}; ` +
        `lazy doctor --fix restores it at ${good.slice(0, 10)} ` +
        `(if you deleted it on purpose, git gc --prune=now forgets it)`,
      details: { task: id, ref: taskRef(id), restore: good },
    });
  }
}

async function isRoot(app: App, oid: string): Promise<boolean> {
  const c = await app.store.reader.objects.read(oid);
  return !!c && parseCommit(c.data).parents.length === 0;
}

/** refs/lazy/config that does not read as settings: commands use the defaults until it is restored. */
export async function repairConfigRef(p: Pass): Promise<void> {
  const { repo, store } = p.app;
  const objects = store.reader.objects;
  const err = await readConfigAt(objects).then(
    () => null,
    (e: unknown) => (e instanceof LazyError ? e : null),
  );
  if (!err) return;
  const seen = (
    await git(['rev-parse', '--verify', '--quiet', CONFIG_REF], { cwd: repo.cwd, allowFail: true })
  ).stdout.trim();
  let good: string | null = null;
  for (const oid of reflogTips(repo.commonDir, CONFIG_REF).filter((o) => o !== seen)) {
    if (
      await readConfigAt(objects, oid).then(
        () => true,
        () => false,
      )
    ) {
      good = oid;
      break;
    }
  }
  if (good && p.fix && (await restoreRef(repo.cwd, CONFIG_REF, good, seen))) {
    p.fixed.push(`restored ${CONFIG_REF} to its last good tip ${good.slice(0, 10)}`);
    return;
  }
  p.findings.push({
    level: 'error',
    code: 'config_ref_damaged',
    message:
      `${err.message}; meanwhile commands use its last good version, else the defaults. ` +
      (good
        ? `lazy doctor --fix restores its last good tip ${good.slice(0, 10)}`
        : `no earlier good settings are in its reflog: git update-ref -d ${CONFIG_REF} drops them`),
    details: { ref: CONFIG_REF, tip: seen, ...(good ? { restore: good } : {}) },
  });
}

/**
 * A follow-up or a reviewer's command since the task became complete made its branch (and worktree) again on
 * purpose (lib/workspace/branch/restore.ts): those are no accept's leftovers.
 */
function madeAgain(v: TaskView): boolean {
  const done = [...v.changelog].reverse().find((c) => c.status === 'complete' && c.trigger !== 'round_end');
  const since = done?.timestamp ?? '';
  return (
    v.changelog.some((c) => c.trigger === 'follow_up' && c.timestamp >= since) ||
    v.turns.some((t) => t.kind === 'command' && t.timestamp >= since)
  );
}

/** A complete task whose branch or worktree stayed (its accept died after the complete commit). */
export async function repairAcceptLeftovers(p: Pass, views: TaskView[]): Promise<void> {
  const { repo } = p.app;
  const config = await p.app.config();
  for (const v of views.filter((x) => x.status === 'complete' && !madeAgain(x))) {
    const branch = taskBranch(v.id);
    const wt = worktreePath(repo, v.id, config.worktree_dir);
    const hasBranch = await branchExists(repo, branch);
    if (!hasBranch && !existsSync(wt)) continue;
    const why = await keepReason(p.app, v, wt, hasBranch ? branch : null);
    const what = [hasBranch && `branch ${branch}`, existsSync(wt) && `worktree ${wt}`]
      .filter((x): x is string => !!x)
      .join(' and ');
    if (!why && p.fix) {
      if (existsSync(wt)) await removeWorktree(repo, wt);
      if (hasBranch) await deleteBranch(repo.cwd, branch);
      p.fixed.push(`removed the ${what} the accept of ${v.id} left behind`);
      continue;
    }
    const kept = why ? `; kept because ${why}` : '; lazy doctor --fix removes them';
    p.findings.push({
      level: 'warning',
      code: 'accept_leftovers',
      message: `task ${v.id} is complete but its ${what} stayed behind${kept}`,
      details: {
        task: v.id,
        branch: hasBranch ? branch : null,
        worktree: existsSync(wt) ? wt : null,
        ...(why ? { kept: why } : {}),
      },
    });
  }
}

/** Why removing a complete task's leftovers would lose something, or null when it would not. */
async function keepReason(app: App, v: TaskView, wt: string, branch: string | null): Promise<string | null> {
  if (existsSync(wt)) {
    const dirty = await dirtyFiles(wt).catch(() => []);
    if (dirty.length) return `the worktree has uncommitted changes (${dirty.slice(0, 3).join(', ')})`;
  }
  if (!branch) return null;
  const done = lastAccept(v);
  const landed = done?.commit ?? (done && done.target !== null ? headRef(done.target) : null);
  if (!landed) return 'the accept recorded no commit to compare the branch with';
  // Merging the branch into what landed changes nothing when the accept took all of it.
  const merged = await git(['merge-tree', '--write-tree', landed, headRef(branch)], {
    cwd: app.repo.cwd,
    allowFail: true,
  });
  const tree = (await git(['rev-parse', `${landed}^{tree}`], { cwd: app.repo.cwd, allowFail: true })).stdout.trim();
  return merged.code === 0 && merged.stdout.split('\n')[0] === tree
    ? null
    : `${branch} holds work the accepted commit does not`;
}

/** A task working here with no turn bookkeeping on this host (.git/lazy deleted): nothing will ever end it. */
export async function repairStuckTurns(p: Pass, views: TaskView[]): Promise<void> {
  const { repo, store } = p.app;
  const marked = new Set(listActive(repo.lazyDir).map((m) => m.task));
  const config = await p.app.config();
  for (const v of views.filter((x) => x.status === 'working' && !marked.has(x.id))) {
    const host = lastChange(v, 'working')?.host;
    if (host !== thisHost()) continue; // another machine's turn is that machine's to judge
    const wt = worktreePath(repo, v.id, config.worktree_dir);
    const pids = processesIn(wt);
    const reason =
      `task ${v.id} is working on this host, but no turn of it is running here ` +
      `(its bookkeeping in .git/lazy is gone)`;
    if (p.fix && !pids.length) {
      await store.mutate(
        v.id,
        'doctor',
        (d) => {
          if (d.status === 'working')
            d.transition(
              'interrupted',
              'turn_crashed',
              `${reason}; marked interrupted by lazy doctor`,
              { details: { held: HELD } },
              'system',
            );
        },
        { actor: 'system' },
      );
      p.fixed.push(`marked ${v.id} interrupted (no turn was running for it here); lazy resume ${v.id} continues it`);
      continue;
    }
    p.findings.push({
      level: 'error',
      code: 'stuck_working',
      message: pids.length
        ? `${reason}; processes still run in its worktree (pid ${pids.join(', ')}): ` +
          `stop them, then run lazy doctor --fix`
        : `${reason}; lazy doctor --fix marks it interrupted so it can be resumed`,
      details: { task: v.id, worktree: wt, pids },
    });
  }
}

/** An open task whose branch was deleted outside lazy: its next turn would refuse to start. */
export async function reportLostBranches(p: Pass, views: TaskView[]): Promise<void> {
  // Only a branch made here can have been lost here: a task worked on elsewhere has none.
  const here = placeOf(p.app.repo);
  for (const v of views.filter(
    (x) => x.session?.ended_at === null && !isTerminal(x.status) && sessionRanHere(x, here),
  )) {
    if (await branchExists(p.app.repo, taskBranch(v.id))) continue;
    const e = branchGone(v, 'doctor', here);
    p.findings.push({
      level: 'error',
      code: 'branch_missing',
      message: e.message,
      details: { task: v.id, ...e.details },
    });
  }
}

/** Work an accept stashed and could not restore, for as long as git still lists it. */
export async function reportAcceptStashes(p: Pass): Promise<void> {
  for (const s of await acceptStashes(p.app.repo.cwd, p.app.repo.commonDir)) {
    p.findings.push({
      level: 'warning',
      code: 'accept_stash',
      message: `${s.task ? `the accept of ${s.task}` : 'an accept'} kept uncommitted work in ${stashAdvice(s)}`,
      details: { task: s.task, stash: s.ref, commit: s.commit, checkout: s.checkout },
    });
  }
}
