import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { busy } from '../../core/errors.js';
import { liveness, selfIdentity, type ProcIdentity } from '../../core/proc.js';
import { nowIso } from '../../core/clock.js';

// One `lazy ui` per repository: the one serving says where it is in `.git/lazy/ui.json` (local, never pushed,
// readable by its owner only: the address carries the token), so a second one points there instead.

interface Instance {
  url: string;
  holder: ProcIdentity;
  started_at: string;
}

const file = (lazyDir: string) => join(lazyDir, 'ui.json');

function readInstance(lazyDir: string): Instance | null {
  try {
    return JSON.parse(readFileSync(file(lazyDir), 'utf8')) as Instance;
  } catch {
    return null;
  }
}

/**
 * Claims the repository for this server, or says where the live one is (busy, exit 5). The file is created
 * exclusively, so of two starting at once one wins; a record whose process is gone is taken over.
 */
export function claimInstance(lazyDir: string, url: string): () => void {
  const mine: Instance = { url, holder: selfIdentity(), started_at: nowIso() };
  for (let attempt = 0; ; attempt++) {
    try {
      writeFileSync(file(lazyDir), JSON.stringify(mine, null, 2) + '\n', { flag: 'wx', mode: 0o600 });
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      if (attempt > 0) throw busy('another lazy ui is starting in this repository at the same moment: try again');
      const other = readInstance(lazyDir);
      if (other?.holder && liveness(other.holder) !== 'dead')
        throw busy(`lazy ui is already serving this repository at ${other.url} (pid ${other.holder.pid})`, {
          url: other.url,
          pid: other.holder.pid,
        });
      rmSync(file(lazyDir), { force: true });
    }
  }
  return () => {
    if (readInstance(lazyDir)?.holder?.pid !== mine.holder.pid) return;
    rmSync(file(lazyDir), { force: true });
    rmSync(join(lazyDir, 'ui-open.html'), { force: true }); // --open's forwarder, which carries the token too
  };
}
