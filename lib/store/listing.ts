import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../core/fsutil.js';
import { LazyError } from '../core/errors.js';
import { foldTask, type TaskView } from '../model/fold.js';
import type { Status } from '../model/status.js';
import { ACTIONS, tableSignature, type Action } from '../model/table.js';
import { NO_SCHEDULE, type Schedule } from '../model/schedule.js';
import { taskUsage, type UsageTotals } from '../model/usage.js';
import { listTaskRefs } from './refs.js';
import type { TaskReader } from './read.js';

// The listing index: a local, never-pushed cache of each task's summary keyed by its
// ref tip. Invariant: it is always rebuildable from refs/lazy/tasks/*; a row is
// trusted only while its tip still matches what one for-each-ref reports.
// Two files: compact tuples for what the table needs (parsed on every list), and the
// remaining fields, read only for --json, inbox and watch.

// available_actions are stored as a bit mask derived under this table: another table, another index.
const VERSION = `7.${tableSignature()}`;

/** What the table, the filters and the inbox need of every task. */
export type LeanRow = Pick<
  TaskView,
  | 'id'
  | 'tip'
  | 'status'
  | 'created_at'
  | 'updated_at'
  | 'goal'
  | 'tags'
  | 'parent'
  | 'attention'
  | 'current_run'
  | 'available_actions'
  | 'schedule'
>;
type Detail = Pick<
  TaskView,
  'tip' | 'agent' | 'base' | 'acceptance' | 'created_by' | 'consecutive_interruptions' | 'revisions' | 'merging_owner'
> & {
  /** The pull request a submit recorded (the task's `submission.url`), null when none. */
  pr_url: string | null;
  /** Token usage summed over the task's agent turns (taskUsage), cost where the agent reported one. */
  usage: UsageTotals;
};
/** A listed task: the task object without its prompt, turns, changelog and session records. */
export type Row = LeanRow & Omit<Detail, 'tip'>;
export interface BadRow {
  id: string;
  tip: string;
  error: { code: string; message: string; details: Record<string, unknown> };
}

type Tuple = [
  string,
  string,
  Status,
  string,
  string,
  string,
  string[],
  string | null,
  TaskView['attention'],
  string | null,
  number,
  // The queue (queued, priority, paused, a usage-limit wait, a claim); null for a task never queued.
  Schedule | null,
];
interface IndexFile {
  version: string;
  rows: Tuple[];
  bad: BadRow[];
}
interface DetailFile {
  version: string;
  rows: Record<string, Detail>;
}

export const indexPath = (lazyDir: string) => join(lazyDir, 'index.json');

/** Listing order: creation time, ties by id. */
export const byCreation = (a: { created_at: string; id: string }, b: { created_at: string; id: string }) =>
  a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : a.id < b.id ? -1 : 1;
const detailPath = (lazyDir: string) => join(lazyDir, 'index-detail.json');

const toTuple = (v: LeanRow): Tuple => [
  v.id,
  v.tip,
  v.status,
  v.created_at,
  v.updated_at,
  v.goal,
  v.tags,
  v.parent,
  v.attention,
  v.current_run,
  maskOf(v.available_actions),
  isPlain(v.schedule) ? null : v.schedule,
];
const fromTuple = (t: Tuple): LeanRow => ({
  id: t[0],
  tip: t[1],
  status: t[2],
  created_at: t[3],
  updated_at: t[4],
  goal: t[5],
  tags: t[6],
  parent: t[7],
  attention: t[8],
  current_run: t[9],
  available_actions: actionsOf(t[10]),
  schedule: t[11] ?? NO_SCHEDULE,
});

const isPlain = (s: Schedule) =>
  !s.queued && !s.paused && s.priority === 0 && s.not_before === null && s.claim === null;

const maskOf = (actions: readonly Action[]) => actions.reduce((m, a) => m | (1 << ACTIONS.indexOf(a)), 0);
const byMask = new Map<number, Action[]>();
/** A handful of masks occur in practice: each decodes once into a shared list (never mutated). */
function actionsOf(mask: number): Action[] {
  let list = byMask.get(mask);
  if (!list) byMask.set(mask, (list = ACTIONS.filter((_, i) => mask & (1 << i))));
  return list;
}
const toDetail = (v: TaskView): Detail => ({
  tip: v.tip,
  agent: v.agent,
  base: v.base,
  acceptance: v.acceptance,
  created_by: v.created_by,
  consecutive_interruptions: v.consecutive_interruptions,
  revisions: v.revisions,
  merging_owner: v.merging_owner,
  pr_url: v.submission?.url ?? null,
  usage: taskUsage(v.turns),
});

function readJson<T extends { version: string }>(path: string): T | undefined {
  try {
    const f = JSON.parse(readFileSync(path, 'utf8')) as T;
    return f.version === VERSION ? f : undefined;
  } catch {
    return undefined;
  }
}

interface Cache {
  lean: Map<string, LeanRow>;
  bad: Map<string, BadRow>;
  detail?: Record<string, Detail>;
}

function load(lazyDir: string, withDetail: boolean): Cache {
  const f = readJson<IndexFile>(indexPath(lazyDir));
  const lean = new Map((f?.rows ?? []).map((t) => [t[0], fromTuple(t)]));
  const bad = new Map((f?.bad ?? []).map((b) => [b.id, b]));
  if (!withDetail) return { lean, bad };
  const d = readJson<DetailFile>(detailPath(lazyDir))?.rows ?? {};
  // A detail row for another tip is stale: forget the lean row too, so it is re-read.
  for (const [id, row] of lean) if (d[id]?.tip !== row.tip) lean.delete(id);
  return { lean, bad, detail: d };
}

/** Ids the cache last saw (doctor's evidence that a task existed before its ref vanished). */
export const indexedIds = (lazyDir: string): string[] => {
  const c = load(lazyDir, false);
  return [...c.lean.keys(), ...c.bad.keys()];
};

async function save(
  lazyDir: string,
  lean: Map<string, LeanRow>,
  bad: Map<string, BadRow>,
  detail: Record<string, Detail>,
): Promise<void> {
  // Detail first: a crash between the two writes leaves lean rows whose detail is newer, never older.
  await writeFileAtomic(detailPath(lazyDir), JSON.stringify({ version: VERSION, rows: detail } satisfies DetailFile));
  // Rows are kept in creation order, the order lists print them in.
  const rows = [...lean.values()].sort(byCreation);
  await writeFileAtomic(
    indexPath(lazyDir),
    JSON.stringify({ version: VERSION, rows: rows.map(toTuple), bad: [...bad.values()] } satisfies IndexFile),
  );
}

export interface Refreshed<R> {
  rows: R[];
  bad: BadRow[];
  reread: number;
}

/** One for-each-ref, then re-read only tasks whose tip moved. */
export async function refreshIndex(cwd: string, lazyDir: string, reader: TaskReader): Promise<Refreshed<LeanRow>>;
export async function refreshIndex(
  cwd: string,
  lazyDir: string,
  reader: TaskReader,
  detail: true,
): Promise<Refreshed<Row>>;
export async function refreshIndex(
  cwd: string,
  lazyDir: string,
  reader: TaskReader,
  detail = false,
): Promise<Refreshed<LeanRow | Row>> {
  const refs = await listTaskRefs(cwd);
  const cache = load(lazyDir, detail);
  const stale = refs.filter((r) => (cache.lean.get(r.id) ?? cache.bad.get(r.id))?.tip !== r.tip);
  const live = new Set(refs.map((r) => r.id));
  const gone = [...cache.lean.keys(), ...cache.bad.keys()].filter((id) => !live.has(id));
  if (stale.length || gone.length) {
    const detailRows = cache.detail ?? readJson<DetailFile>(detailPath(lazyDir))?.rows ?? {};
    const read = await reader.readMany(stale);
    for (const r of stale) {
      const res = read.get(r.id)!;
      cache.lean.delete(r.id);
      cache.bad.delete(r.id);
      if (res instanceof LazyError) {
        cache.bad.set(r.id, {
          id: r.id,
          tip: r.tip,
          error: { code: res.code, message: res.message, details: res.details },
        });
        continue;
      }
      const v = foldTask(res.docs);
      cache.lean.set(r.id, leanOf(v));
      detailRows[r.id] = toDetail(v);
    }
    for (const id of gone) {
      cache.lean.delete(id);
      cache.bad.delete(id);
      delete detailRows[id];
    }
    await save(lazyDir, cache.lean, cache.bad, detailRows).catch(() => {
      /* a read-only .git still lists */
    });
    cache.detail = detailRows;
  }
  const rows = detail
    ? [...cache.lean.values()].map((v) => ({ ...v, ...withoutTip(cache.detail![v.id]!) }))
    : [...cache.lean.values()];
  return { rows, bad: [...cache.bad.values()], reread: stale.length };
}

const leanOf = (v: LeanRow): LeanRow => fromTuple(toTuple(v));
const withoutTip = ({ tip: _t, ...rest }: Detail) => rest;

/** Writes fresh rows for tasks a caller already read (a pull), so the next list skips them. */
export async function primeIndex(lazyDir: string, views: Iterable<TaskView>): Promise<void> {
  const cache = load(lazyDir, true);
  const detail = cache.detail!;
  let n = 0;
  for (const v of views) {
    cache.lean.set(v.id, leanOf(v));
    cache.bad.delete(v.id);
    detail[v.id] = toDetail(v);
    n++;
  }
  if (n) await save(lazyDir, cache.lean, cache.bad, detail).catch(() => {});
}
