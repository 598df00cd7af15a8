import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../core/fsutil.js';
import { LazyError } from '../core/errors.js';
import { foldTask, type TaskView } from '../model/fold.js';
import { listTaskRefs } from './refs.js';
import type { TaskReader } from './read.js';

// The listing index: a local, never-pushed cache of each task's summary keyed by its
// ref tip. Invariant: it is always rebuildable from refs/lazy/tasks/*; a row is
// trusted only while its tip still matches what one for-each-ref reports.

const VERSION = 1;

export type Row = Omit<TaskView, 'turns' | 'changelog' | 'sessions' | 'available_actions' | 'category'>;
export interface BadRow { id: string; tip: string; error: { code: string; message: string; details: Record<string, unknown> } }
type Entry = Row | BadRow;
interface IndexFile { version: number; rows: Record<string, Entry> }

export const isBad = (e: Entry): e is BadRow => 'error' in e;
export const indexPath = (lazyDir: string) => join(lazyDir, 'index.json');

function load(lazyDir: string): Record<string, Entry> {
  try {
    const f = JSON.parse(readFileSync(indexPath(lazyDir), 'utf8')) as IndexFile;
    return f.version === VERSION && f.rows && typeof f.rows === 'object' ? f.rows : {};
  } catch {
    return {};
  }
}

export function toRow(v: TaskView): Row {
  const { turns: _t, changelog: _c, sessions: _s, available_actions: _a, category: _k, ...row } = v;
  return row;
}

export interface Refreshed { rows: Row[]; bad: BadRow[]; reread: number }

/** One for-each-ref, then re-read only tasks whose tip moved. */
export async function refreshIndex(cwd: string, lazyDir: string, reader: TaskReader): Promise<Refreshed> {
  const [refs, cached] = [await listTaskRefs(cwd), load(lazyDir)];
  const stale = refs.filter((r) => cached[r.id]?.tip !== r.tip);
  const next: Record<string, Entry> = {};
  if (stale.length) {
    const read = await reader.readMany(stale);
    for (const r of stale) {
      const res = read.get(r.id)!;
      next[r.id] = res instanceof LazyError
        ? { id: r.id, tip: r.tip, error: { code: res.code, message: res.message, details: res.details } }
        : toRow(foldTask(res.docs));
    }
  }
  for (const r of refs) next[r.id] ??= cached[r.id]!;
  const changed = stale.length > 0 || Object.keys(cached).length !== refs.length;
  if (changed) {
    await writeFileAtomic(indexPath(lazyDir), JSON.stringify({ version: VERSION, rows: next } satisfies IndexFile))
      .catch(() => { /* a read-only .git still lists; the next run rebuilds */ });
  }
  const entries = Object.values(next);
  return { rows: entries.filter((e): e is Row => !isBad(e)), bad: entries.filter(isBad), reread: stale.length };
}

/** Writes fresh rows for tasks a caller already read (a pull), so the next list skips them. */
export async function primeIndex(lazyDir: string, views: Iterable<TaskView>): Promise<void> {
  const rows = load(lazyDir);
  let n = 0;
  for (const v of views) { rows[v.id] = toRow(v); n++; }
  if (n) await writeFileAtomic(indexPath(lazyDir), JSON.stringify({ version: VERSION, rows } satisfies IndexFile)).catch(() => {});
}
