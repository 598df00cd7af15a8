import { usageError } from '../core/errors.js';
import { archiveDue, DEFAULT_ARCHIVE_DAYS, type ArchiveOutcome } from '../store/archive/index.js';
import type { App } from './app.js';

export type { ArchiveOutcome } from '../store/archive/index.js';

/** How many days a finished task rests before it is archived: --older-than, else archive.after_days, else 30. */
export async function archiveDays(app: App, olderThan?: number): Promise<number> {
  const days = olderThan ?? (await app.config()).archive?.after_days ?? DEFAULT_ARCHIVE_DAYS;
  if (!Number.isFinite(days) || days < 0)
    throw usageError(`--older-than must be a number of days, 0 or more, got '${days}'`);
  return days;
}

/** lazy archive: finished tasks past their rest move into refs/lazy/archive/*; what a live ref took back leaves it. */
export async function archiveOp(app: App, olderThan?: number): Promise<ArchiveOutcome> {
  return archiveDue(app.store, await archiveDays(app, olderThan));
}
