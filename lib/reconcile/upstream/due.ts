import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Repo } from '../../core/repo.js';
import { readStateFile, writeStateFile } from '../../core/fsutil.js';
import { fileSystemNow } from '../../core/clock.js';
import { REMOTES_NS } from '../../core/names.js';

// The upstream settle's trigger. A fetch, a push or a prune that moves a remote-tracking ref
// rewrites a file in refs/remotes/<remote>/ (a target such as main) or in
// refs/remotes/<remote>/lazy/ (task branches), so those folders' stamps change (or
// packed-refs', for a pruned packed ref). `.git/lazy/upstream.json` keeps the stamps the last
// settle saw, and which submissions it has seen on the remote. Cost per command: one readdir
// of refs/remotes and two stats per remote. A folder changed in the last 2 s is recorded as
// racy (never equal), since a ref written in the same clock tick would not change its stamp.

export interface UpstreamStamp {
  dirs: Record<string, string>;
  packed: string | null;
  /** Task id → the submission entry whose remote branch a settle here has seen. */
  seen: Record<string, string>;
  /** How many submitted tasks the last settle found: with none, a moved tracking ref changes nothing. */
  watching?: number;
}

const FILE = 'upstream.json';
const RACY_MS = 2000;

export const readStamp = (lazyDir: string): UpstreamStamp | null =>
  readStateFile<UpstreamStamp>(
    join(lazyDir, FILE),
    (o) => typeof o.dirs === 'object' && !!o.dirs && typeof o.seen === 'object' && !!o.seen,
  );

/** A stamp that cannot be written only costs the next command another settle. */
export const writeStamp = (lazyDir: string, s: UpstreamStamp): void => writeStateFile(join(lazyDir, FILE), s);

function stampOf(path: string, now: number): string | null {
  try {
    const s = statSync(path, { bigint: true });
    return now - Number(s.mtimeMs) < RACY_MS ? 'racy' : `${s.mtimeNs}:${s.ino}:${s.size}`;
  } catch {
    return null;
  }
}

/** The folders' stamps now: taken before the refs are read, so a change during a settle shows next time. */
export function currentStamps(repo: Repo): Pick<UpstreamStamp, 'dirs' | 'packed'> {
  const now = fileSystemNow();
  const dirs: Record<string, string> = {};
  let remotes: string[] = [];
  try {
    remotes = readdirSync(join(repo.commonDir, REMOTES_NS));
  } catch {
    /* no remote-tracking refs */
  }
  for (const r of remotes)
    for (const sub of [r, `${r}/lazy`]) {
      const s = stampOf(join(repo.commonDir, REMOTES_NS, sub), now);
      if (s) dirs[sub] = s;
    }
  return { dirs, packed: stampOf(join(repo.commonDir, 'packed-refs'), now) };
}

/** Whether a remote-tracking ref may have moved since the last settle (the first only once one exists). */
export function upstreamDue(repo: Repo): boolean {
  const old = readStamp(repo.lazyDir);
  const now = currentStamps(repo);
  if (!old) return Object.keys(now.dirs).length > 0;
  // Invariant: a task becomes submitted here only by lazy submit or a pull, and both settle (recording it).
  if (old.watching === 0) return false;
  if (old.packed !== now.packed || old.packed === 'racy') return true;
  const keys = new Set([...Object.keys(old.dirs), ...Object.keys(now.dirs)]);
  for (const k of keys) if (old.dirs[k] !== now.dirs[k] || now.dirs[k] === 'racy') return true;
  return false;
}
