import { git } from '../core/git.js';
import { LazyError } from '../core/errors.js';
import { isTaskId } from '../core/ids.js';
import type { Repo } from '../core/repo.js';
import type { TaskReader, TaskRead } from '../store/read.js';
import { listTaskRefs } from '../store/refs.js';
import { ENTRY_DIRS, TASK_ENTRY_HARD_LIMIT, TASKS_NS, taskRef } from '../store/layout.js';
import { foldTask, maxClock, type TaskView } from '../model/fold.js';
import { planMerge, CorruptMerge } from './merge-docs.js';
import { writeMergeCommit } from './write-merge.js';
import { moveRefs, type RefMove } from './apply.js';

// Merging fetched task refs into the local ones. Every remote task is validated (schema,
// invariants, append-only history) before anything local moves; a bad one is reported
// and skipped, and the others still merge.

export interface Rejected { id: string; reason: string; details: Record<string, unknown> }

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

const MAX_CLOCK_JUMP = 1_000_000;
const BATCH = 2000;

/** Merges the remote's task tips (objects already fetched) into the local refs. */
export async function mergeRemote(repo: Repo, reader: TaskReader, remote: string, tips: Map<string, string>, progress?: (msg: string) => void): Promise<MergeReport> {
  const report: MergeReport = { new: [], updated: [], merged: [], rejected: [], unchanged: 0, local_ahead: [], concurrent: [], views: new Map() };
  const remoteRefs = [...tips].filter(([ref]) => ref.startsWith(TASKS_NS)).map(([ref, tip]) => ({ id: ref.slice(TASKS_NS.length), tip }));
  const localRefs = await listTaskRefs(repo.cwd);
  const local = new Map(localRefs.map((r) => [r.id, r.tip]));
  const todo: Todo[] = [];
  for (const r of remoteRefs) {
    const ref = `${remote}:${TASKS_NS}${r.id}`;
    if (!isTaskId(r.id)) { report.rejected.push({ id: r.id, reason: 'not a task id', details: { ref } }); continue; }
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
    if (moves.length) writes.push(moveRefs(repo.cwd, moves, `lazy: pull from ${remote}`));
  }
  const lost = (await Promise.all(writes)).flatMap((w) => w.lost);
  for (const m of lost) {
    // A local writer moved the ref meanwhile; its change is kept and the next pull merges again.
    const id = m.ref.slice(TASKS_NS.length);
    for (const list of [report.new, report.updated, report.merged]) { const i = list.indexOf(id); if (i >= 0) list.splice(i, 1); }
    report.views.delete(id);
    report.rejected.push({ id, reason: 'the local task changed during the pull; pull again to merge it', details: { ref: m.ref } });
  }
  for (const id of report.merged) {
    const v = report.views.get(id)!;
    if (v.concurrent_changes.length) report.concurrent.push({ id, set_aside: v.concurrent_changes.map((c) => `${c.from ?? '∅'} → ${c.status} by ${c.actor} (${c.trigger})`) });
  }
  return report;
}

type Todo = { id: string; tip: string; ref: string; local: string | undefined };

async function validateBatch(repo: Repo, reader: TaskReader, todo: Todo[], report: MergeReport): Promise<RefMove[]> {
  const remoteRead = await reader.readMany(todo.map((t) => ({ id: t.id, tip: t.tip, ref: t.ref })));
  const moves: RefMove[] = [];
  for (const t of todo) {
    const r = remoteRead.get(t.id)!;
    if (r instanceof LazyError) { report.rejected.push({ id: t.id, reason: r.message, details: r.details }); continue; }
    const size = ENTRY_DIRS.reduce((n, d) => n + (r.snap.dirs.get(d)?.length ?? 0), 0);
    if (size > TASK_ENTRY_HARD_LIMIT) { report.rejected.push({ id: t.id, reason: `has ${size} entries, more than ${TASK_ENTRY_HARD_LIMIT}`, details: { ref: t.ref } }); continue; }
    // A clock far beyond the history that backs it would crowd out every later entry.
    const clock = maxClock(r.docs);
    if (clock > MAX_CLOCK_JUMP * (size + 1)) { report.rejected.push({ id: t.id, reason: `its Lamport clock ${clock} jumps too far for ${size} entries`, details: { ref: t.ref } }); continue; }
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
      if (e instanceof CorruptMerge || e instanceof LazyError) report.rejected.push({ id: t.id, reason: e.message, details: { ref: t.ref, ...(e instanceof CorruptMerge ? { path: e.path } : e.details) } });
      else throw e;
    }
  }
  return moves;
}

type One = { kind: 'ahead' } | { kind: 'ff' | 'merge'; tip: string; view: TaskView };

async function mergeOne(repo: Repo, reader: TaskReader, id: string, localTip: string, remote: TaskRead): Promise<One> {
  const base = (await git(['merge-base', localTip, remote.docs.tip], { cwd: repo.cwd, allowFail: true })).stdout.trim() || null;
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
      if (t !== undefined && t !== e.oid) throw new CorruptMerge(`${dir}/${e.name}`, `${dir}/${e.name} has different contents on the two sides`);
      if (t === undefined && ff) throw new CorruptMerge(`${dir}/${e.name}`, `the remote history drops ${dir}/${e.name}`);
    }
  }
}
