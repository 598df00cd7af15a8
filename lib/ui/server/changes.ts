import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { git } from '../../core/git.js';
import type { Repo } from '../../core/repo.js';
import { BRANCH_NS, LAZY_NS } from '../../core/names.js';
import { activeDir, listActive } from '../../store/markers.js';
import { runDir } from '../../agents/runs.js';

// What tells the open page that something changed, from anywhere (another terminal, an agent, a pull, a worker):
// a fingerprint of everything the board and a task's page are read from, taken without reading a ref's content.
// A ref moves by a rename into its folder and a packed ref by a rewrite of packed-refs, so the folders' and that
// file's stat say it; an agent's progress, a wait and a retry are files renamed into the run's folder. A reftable
// repository has no such files: there, one for-each-ref.

/** Every folder under `dir` (itself included): a loose ref written or deleted there changes its mtime. */
function folders(dir: string, out: string[] = []): string[] {
  let names: string[];
  try {
    names = readdirSync(dir, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name);
  } catch {
    return out;
  }
  out.push(dir);
  for (const n of names) folders(join(dir, n), out);
  return out;
}

const stamp = (path: string): string => {
  try {
    const s = statSync(path);
    return `${path} ${s.mtimeMs} ${s.size} ${s.ino}`;
  } catch {
    return `${path} -`;
  }
};

/** The fingerprint of the repository's task state: equal fingerprints, nothing to show anew. */
export async function fingerprint(repo: Repo): Promise<string> {
  const h = createHash('sha1');
  if (existsSync(join(repo.commonDir, 'reftable'))) {
    const r = await git(['for-each-ref', '--format=%(objectname) %(refname)', LAZY_NS, BRANCH_NS], { cwd: repo.cwd });
    h.update(r.stdout);
  } else {
    h.update(stamp(join(repo.commonDir, 'packed-refs')));
    for (const d of [...folders(join(repo.commonDir, LAZY_NS)), ...folders(join(repo.commonDir, BRANCH_NS))])
      h.update(stamp(d));
  }
  h.update(stamp(activeDir(repo.lazyDir)));
  for (const m of listActive(repo.lazyDir)) h.update(stamp(runDir(repo.lazyDir, m.run)));
  return h.digest('hex');
}
