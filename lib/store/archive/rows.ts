import { LazyError } from '../../core/errors.js';
import { foldTask } from '../../model/fold.js';
import type { TaskReader } from '../read.js';
import { badRow, FACTS, fromTuple, toDetail, toTuple, type BadRow, type LeanRow, type Row } from '../listing/rows.js';
import { archiveRef } from '../../core/names.js';
import { readAllArchived, shardOf } from './map.js';

// The rows of archived tasks, for `list --all` and `list --status complete|abandoned` (the default list never reads
// the archive). Each shard's map names the task's tip and the status it was archived in, so a status filter skips the
// others unread; the rows themselves are folded from the documents at those tips, as the listing index's are.

const CHUNK = 2000;

export async function archivedRows(
  reader: TaskReader,
  /** Ids with a live ref: the live row is the task's (a reopened task stays in a map until the next archive). */
  live: Set<string>,
  keep: (status: string) => boolean,
  detail: boolean,
): Promise<{ rows: (LeanRow | Row)[]; bad: BadRow[] }> {
  const all = await readAllArchived(reader.objects);
  const wanted = [...all.values()].filter((a) => !live.has(a.id) && keep(a.status));
  const rows: (LeanRow | Row)[] = [];
  const bad: BadRow[] = [];
  for (let i = 0; i < wanted.length; i += CHUNK) {
    const part = wanted.slice(i, i + CHUNK).map((a) => ({ id: a.id, tip: a.tip, ref: archiveRef(shardOf(a.id)) }));
    const read = await reader.readMany(part);
    for (const a of part) {
      const r = read.get(a.id)!;
      if (r instanceof LazyError) {
        bad.push(badRow(a, r));
        continue;
      }
      const v = foldTask(r.docs);
      if (!keep(v.status)) continue;
      const lean = fromTuple(toTuple(v));
      if (!detail) rows.push(lean);
      else {
        const { tip: _t, prompt: _p, spend: _s, facts, ...rest } = toDetail(v);
        rows.push(Object.assign({ ...lean, ...rest }, { [FACTS]: facts }));
      }
    }
  }
  return { rows, bad };
}
