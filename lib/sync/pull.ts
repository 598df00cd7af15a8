import { git } from '../core/git.js';
import { LazyError } from '../core/errors.js';
import type { Repo } from '../core/repo.js';
import type { TaskReader, TaskRead } from '../store/read.js';
import { checkTasks, isRejected, refusedName, type Rejected } from './check.js';
import { listTaskRefs } from '../store/refs.js';
import { ENTRY_DIRS } from '../store/layout.js';
import { foldTask, type TaskView } from '../model/fold.js';
import { planMerge, CorruptMerge } from './merge-docs.js';
import { writeMergeCommit } from './write-merge.js';
import { moveRefs, type RefMove } from './apply.js';
import { remoteRefLabel, taskRef, TASKS_NS } from '../core/names.js';

// Merging fetched task refs into the local ones. Every remote task is validated (schema,
// invariants, append-only history) before anything local moves; a bad one is reported
// and skipped, and the others still merge.

export type { Rejected } from './check.js';

export interface MergeReport {
  new: string[];
  updated: string[];
  merged: string[];
  rejected: Rejected[];
  unchanged: number;
  local_ahead: string[];
  /** Merged tasks whose concurrent status changes were set aside, with what was set aside. */
  concurrent: { id: string; set_aside: string[] }[];
  /** Fresh views of everything that moved, so the listing index need not re-read them. */
  views: Map<string, TaskView>;
}

const BATCH = 2000;

/** Merges the remote's task tips (objects already fetched) into the local refs. */
export async function mergeRemote(
  repo: Repo,
  reader: TaskReader,
  remote: string,
  tips: Map<string, string>,
  progress?: (msg: string) => void,
  /** The local task refs, when the caller listed them already. */
  listed?: { id: string; tip: string }[],
): Promise<MergeReport> {
  const report: MergeReport = {
    new: [],
    updated: [],
    merged: [],
    rejected: [],
    unchanged: 0,
    local_ahead: [],
    concurrent: [],
    views: new Map(),
  };
  const remoteRefs = [...tips]
    .filter(([ref]) => ref.startsWith(TASKS_NS))
    .map(([ref, tip]) => ({ id: ref.slice(TASKS_NS.length), tip }));
  const localRefs = listed ?? (await listTaskRefs(repo.cwd));
  const local = new Map(localRefs.map((r) => [r.id, r.tip]));
  const todo: Todo[] = [];
  for (const r of remoteRefs) {
    const ref = remoteRefLabel(remote, taskRef(r.id));
    const refused = refusedName(taskRef(r.id), ref);
    if (refused) {
      report.rejected.push(refused);
      continue;
    }
    const l = local.get(r.id);
    if (l === r.tip) report.unchanged++;
    else todo.push({ ...r, ref, local: l });
  }
  if (todo.length > 500) progress?.(`validating ${todo.length} incoming tasks`);
  // Validation (here) and ref writes (in git) overlap: each batch's refs move while the
  // next batch is read and checked. A first pull of thousands of tasks is mostly both.
  const writes: Promise<{ lost: RefMove[] }>[] = [];
  for (let i = 0; i < todo.length; i += BATCH) {
    const batch = todo.slice(i, i + BATCH);
    const moves = await validateBatch(repo, reader, batch, report);
    if (moves.length) writes.push(moveRefs(repo.cwd, moves, `lazy: pull from ${remote}`, repo.commonDir));
  }
  const lost = (await Promise.all(writes)).flatMap((w) => w.lost);
  for (const m of lost) {
    // A local writer moved the ref meanwhile; its change is kept and the next pull merges again.
    const id = m.ref.slice(TASKS_NS.length);
    for (const list of [report.new, report.updated, report.merged]) {
      const i = list.indexOf(id);
      if (i >= 0) list.splice(i, 1);
    }
    report.views.delete(id);
    report.rejected.push({
      id,
      reason: 'the local task changed during the pull; pull again to merge it',
      details: { ref: m.ref },
    });
  }
  for (const id of report.merged) {
    const v = report.views.get(id)!;
    if (v.concurrent_changes.length)
      report.concurrent.push({
        id,
        set_aside: v.concurrent_changes.map((c) => `${c.from ?? '∅'} → ${c.status} by ${c.actor} (${c.trigger})`),
      });
  }
  return report;
}

type Todo = { id: string; tip: string; ref: string; local: string | undefined };

async function validateBatch(repo: Repo, reader: TaskReader, todo: Todo[], report: MergeReport): Promise<RefMove[]> {
  const checked = await checkTasks(reader, todo);
  const moves: RefMove[] = [];
  for (const t of todo) {
    const r = checked.get(t.id)!;
    if (isRejected(r)) {
      report.rejected.push(r);
      continue;
    }
    if (!t.local) {
      moves.push({ ref: taskRef(t.id), next: t.tip, old: null });
      report.new.push(t.id);
      report.views.set(t.id, foldTask(r.docs));
      continue;
    }
    try {
      const outcome = await mergeOne(repo, reader, t.id, t.local, r);
      if (outcome.kind === 'ahead') report.local_ahead.push(t.id);
      else {
        moves.push({ ref: taskRef(t.id), next: outcome.tip, old: t.local });
        (outcome.kind === 'ff' ? report.updated : report.merged).push(t.id);
        report.views.set(t.id, outcome.view);
      }
    } catch (e) {
      if (e instanceof Unrelated)
        report.rejected.push({
          id: t.id,
          reason: e.message,
          details: { ref: t.ref, code: 'unrelated_history', local_tip: e.local, remote_tip: e.remote },
        });
      else if (e instanceof CorruptMerge || e instanceof LazyError)
        report.rejected.push({
          id: t.id,
          reason: e.message,
          details: { ref: t.ref, ...(e instanceof CorruptMerge ? { path: e.path } : e.details) },
        });
      else throw e;
    }
  }
  return moves;
}

class Unrelated extends Error {
  constructor(
    id: string,
    readonly local: string,
    readonly remote: string,
  ) {
    super(
      `the remote history of ${id} shares no commit with the local one (rewritten or forced); ` +
        `not merged, the local task is kept`,
    );
  }
}

type One = { kind: 'ahead' } | { kind: 'ff' | 'merge'; tip: string; view: TaskView };

async function mergeOne(repo: Repo, reader: TaskReader, id: string, localTip: string, remote: TaskRead): Promise<One> {
  const base =
    (await git(['merge-base', localTip, remote.docs.tip], { cwd: repo.cwd, allowFail: true })).stdout.trim() || null;
  // Every clone's history of a task grows from the commit that created it: a remote
  // history with no commit in common is a rewrite (a forced push), never merged.
  if (!base) throw new Unrelated(id, localTip, remote.docs.tip);
  if (base === remote.docs.tip) return { kind: 'ahead' };
  const local = await reader.readOne(id);
  const ff = base === localTip;
  assertAppendOnly(local, remote, ff);
  if (ff) return { kind: 'ff', tip: remote.docs.tip, view: foldTask(remote.docs) };
  const baseRead = base ? (await reader.readMany([{ id, tip: base }])).get(id) : undefined;
  const baseDocs = baseRead && !(baseRead instanceof LazyError) ? baseRead : null;
  // Canonical order, so both clones compute the same merge.
  const [a, b] = local.docs.tip < remote.docs.tip ? [local, remote] : [remote, local];
  const merged = await writeMergeCommit(repo, reader, id, a, b, planMerge(baseDocs, a, b));
  return { kind: 'merge', tip: merged.tip, view: merged.view };
}

/**
 * Entries are append-only: what the local side has must be on the remote side unchanged,
 * and a fast-forward may not drop any (a diverged merge keeps the union anyway).
 */
function assertAppendOnly(local: TaskRead, remote: TaskRead, ff: boolean): void {
  for (const dir of ENTRY_DIRS) {
    const theirs = new Map((remote.snap.dirs.get(dir) ?? []).map((e) => [e.name, e.oid]));
    for (const e of local.snap.dirs.get(dir) ?? []) {
      const t = theirs.get(e.name);
      if (t !== undefined && t !== e.oid)
        throw new CorruptMerge(`${dir}/${e.name}`, `${dir}/${e.name} has different contents on the two sides`);
      if (t === undefined && ff)
        throw new CorruptMerge(`${dir}/${e.name}`, `the remote history drops ${dir}/${e.name}`);
    }
  }
}
