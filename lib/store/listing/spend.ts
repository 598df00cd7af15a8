import { join } from 'node:path';
import type { TurnSpend } from '../../model/usage.js';
import { writeFileAtomic } from '../../core/fsutil.js';
import { detailPath, readJson, rowOf, VERSION, type DeltaFile, type DetailFile, type Stored } from './files.js';
import type { Detail } from './rows.js';

// The index's copy of every task's agent turns as `lazy usage` counts them (rows.ts `spend`), in a file of its own
// written with each base: usage reads it instead of the detail file, a tenth of its size. Invariant: it is believed
// only for the base it was written with (its gen); rows changed since come from the delta, and without it (an older
// or interrupted write) usage reads the detail rows, which carry the same records.

export const spendPath = (lazyDir: string) => join(lazyDir, 'index-spend.json');

interface SpendFile {
  version: string;
  /** The base written with it. */
  gen: string;
  rows: Record<string, TurnSpend[]>;
  /** The base's rows whose detail was not known (read from their summary): their turns are not here. */
  thin: string[];
}

/** A compaction's detail rows for the base `gen`: the spend file (the tasks with agent turns), then the detail file. */
export async function writeDetail(
  lazyDir: string,
  gen: string,
  detail: Record<string, Detail>,
  thin: string[],
): Promise<void> {
  const rows: Record<string, TurnSpend[]> = {};
  for (const [id, d] of Object.entries(detail)) if (d.spend?.length) rows[id] = d.spend;
  await writeFileAtomic(spendPath(lazyDir), JSON.stringify({ version: VERSION, gen, rows, thin } satisfies SpendFile));
  await writeFileAtomic(detailPath(lazyDir), JSON.stringify({ version: VERSION, rows: detail } satisfies DetailFile));
}

export interface Spent {
  id: string;
  /** Its row is parsed only when asked (usage --by task). */
  goal: () => string;
  spend: TurnSpend[];
}

/**
 * The tasks an agent worked on, in creation order, with their turns. From the detail
 * rows when the read loaded them, else the spend file over the delta; undefined when neither is at hand, or a row's
 * turns are not known (read from its summary): the detail read then folds those tasks.
 */
export function spentOf(
  lazyDir: string,
  c: { gen: string; lean: Map<string, Stored>; delta: DeltaFile; detail?: Record<string, Detail> },
): Spent[] | undefined {
  let of = (id: string) => c.detail?.[id]?.spend;
  if (!c.detail) {
    const f = readJson<SpendFile>(spendPath(lazyDir));
    if (!c.gen || f?.gen !== c.gen || c.delta.thin.length) return undefined;
    if (f.thin.some((id) => c.lean.has(id) && !c.delta.detail[id])) return undefined;
    of = (id) => c.delta.detail[id]?.spend ?? f.rows[id];
  }
  const out: Spent[] = [];
  for (const [id, v] of c.lean) {
    const spend = of(id);
    if (spend?.length) out.push({ id, goal: () => rowOf(v).goal, spend });
  }
  return out;
}
