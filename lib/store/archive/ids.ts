import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../../core/fsutil.js';
import type { ObjectReader } from '../objects.js';
import { readAllArchived } from './map.js';

// Archived ids for shell completion, which starts no git: a local file (.git/lazy/archived-ids), one id a line,
// rewritten whenever this clone's archive refs move (lazy archive, a pull that takes them). Only a cache: a missing
// or stale file costs completion candidates, never a task.

const idsPath = (lazyDir: string) => join(lazyDir, 'archived-ids');

export async function saveArchivedIds(lazyDir: string, objects: ObjectReader): Promise<void> {
  const ids = [...(await readAllArchived(objects)).keys()].sort();
  await writeFileAtomic(idsPath(lazyDir), ids.map((id) => `${id}\n`).join('')).catch(() => {
    /* a read-only .git: completion offers live ids only */
  });
}

export function archivedIds(lazyDir: string, prefix = ''): string[] {
  try {
    return readFileSync(idsPath(lazyDir), 'utf8')
      .split('\n')
      .filter((id) => id && id.startsWith(prefix));
  } catch {
    return [];
  }
}

/** Every id the file lists; null when there is no file (nothing is known). */
export function archivedIdsFile(lazyDir: string): string[] | null {
  try {
    return readFileSync(idsPath(lazyDir), 'utf8').split('\n').filter(Boolean);
  } catch {
    return null;
  }
}
