import { LazyError } from '../../core/errors.js';
import { archiveRef, taskRef } from '../../core/names.js';
import { foldTask } from '../../model/fold.js';
import { isTerminal } from '../../model/status.js';
import { readAllArchived, shardOf, type Archived } from '../../store/archive/map.js';
import type { RefTip } from '../../store/refs.js';
import { restoreRef } from '../../store/recover.js';
import type { Pass } from './pass.js';

// The archive's map is what hides a task from the default list and from every fetch: an entry whose tip does not
// read, whose documents are not finished, or whose status is not its fold's would hide (or list) a task the documents
// do not say is done. Doctor folds each entry with no live ref (a live ref wins anyway); --fix brings a task that is
// not finished back live, at the archived tip, with a create-only ref (the map forgets it at the next archive).

const CHUNK = 2000;

export async function repairArchive(p: Pass, refs: RefTip[]): Promise<void> {
  const live = new Set(refs.map((r) => r.id));
  const entries = [...(await readAllArchived(p.app.store.reader.objects)).values()].filter((a) => !live.has(a.id));
  for (let i = 0; i < entries.length; i += CHUNK) {
    const part = entries.slice(i, i + CHUNK);
    const read = await p.app.store.reader.readMany(
      part.map((a) => ({ id: a.id, tip: a.tip, ref: archiveRef(shardOf(a.id)) })),
    );
    for (const a of part) {
      const r = read.get(a.id)!;
      if (r instanceof LazyError) report(p, a, `its tip does not read: ${r.message}`);
      else {
        const status = foldTask(r.docs).status;
        if (!isTerminal(status)) await revive(p, a, status);
        else if (status !== a.status) report(p, a, `the map says ${a.status}, its documents say ${status}`);
      }
    }
  }
}

async function revive(p: Pass, a: Archived, status: string): Promise<void> {
  if (p.fix && (await restoreRef(p.app.repo.cwd, taskRef(a.id), a.tip, null))) {
    p.fixed.push(`brought archived task ${a.id} back live at ${a.tip.slice(0, 10)}: its documents say ${status}`);
    return;
  }
  report(p, a, `its documents say ${status}, not finished; lazy doctor --fix brings it back live`);
}

function report(p: Pass, a: Archived, why: string): void {
  p.findings.push({
    level: 'error',
    code: 'archive_entry_wrong',
    message: `archived task ${a.id} in ${archiveRef(shardOf(a.id))}: ${why}`,
    details: { ref: archiveRef(shardOf(a.id)), task: a.id, tip: a.tip, why },
  });
}
