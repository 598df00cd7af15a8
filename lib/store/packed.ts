import { closeSync, existsSync, fchmodSync, fsyncSync, openSync, readdirSync, readFileSync, renameSync } from 'node:fs';
import { rmSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { git } from '../core/git.js';
import { poll } from '../core/clock.js';
import { withLock } from '../core/lock.js';
import type { Repo } from '../core/repo.js';
import { TASKS_NS } from '../core/names.js';

// Packed refs. git keeps a ref as a loose file until something packs it into .git/packed-refs; plumbing never
// does (only `git gc`), and every ref scan opens every loose file: at 10,000 task refs `for-each-ref` costs
// 4-7x more loose than packed. Two ways lazy keeps its refs packed:
// - packWhenLoose: more than LOOSE_REFS_MAX loose task refs (one readdir, by commands that write anyway) and
//   `git pack-refs --all` runs, as `git gc --auto` would. git makes the pack itself safe against a concurrent
//   compare-and-swap: it holds packed-refs.lock while it writes, and deletes each loose ref under that ref's own
//   lock only while it still has the value packed, so an update that raced it stays (loose, newer). lazy's `refs`
//   lock adds one packer at a time: a second git pack-refs would fail on packed-refs.lock after git's 1 s wait
//   (a command's error for nothing); under the lock the second re-counts and finds nothing to do. A writer that
//   meets a ref lock the pack holds loses its compare-and-swap ('moved') and re-reads, as for any other writer.
// - createPacked: a pull that creates many refs writes them straight into packed-refs, as `git clone` writes its
//   first refs, instead of one loose file (and lock, rename) per ref: at 10,000 new tasks those file writes cost
//   as much as the whole object transfer, and would be packed again at once.

/** More loose task refs than this and a writing command packs them (lazy doctor --fix packs above it too). */
export const LOOSE_REFS_MAX = 256;

/** How many loose files refs/lazy/tasks/ holds: one readdir. */
export function looseTaskRefs(commonDir: string): number {
  try {
    return readdirSync(join(commonDir, TASKS_NS)).length;
  } catch {
    return 0;
  }
}

/**
 * Packs every ref when more than `max` task refs are loose, under lazy's `packing` lock (counted again under it); how
 * many were loose when it packed, else 0. A pack git cannot do now (packed-refs.lock held past git's wait) is left
 * for the next command.
 */
export async function packWhenLoose(repo: Repo, max = LOOSE_REFS_MAX): Promise<number> {
  if (looseTaskRefs(repo.commonDir) <= max) return 0;
  // Best effort: it runs after a write landed (a create, a pull), which must not report a failure it did not have;
  // a busy lock means another command is packing these refs now.
  return withLock(repo.lazyDir, 'packing', async () => {
    const loose = looseTaskRefs(repo.commonDir);
    if (loose <= max) return 0;
    const r = await git(['pack-refs', '--all'], { cwd: repo.cwd, allowFail: true });
    return r.code === 0 ? loose : 0;
  }).catch(() => 0);
}

/** Create-only refs written into packed-refs in one go: those that lost (some value was there) are returned. */
export interface PackedCreate {
  ref: string;
  next: string;
}

const HEADER = '# pack-refs with: peeled fully-peeled sorted \n';
/** git's own wait for packed-refs.lock (core.packedRefsTimeout's default). */
const LOCK_WAIT_MS = 1000;

/**
 * Creates refs that must not exist yet by one rewrite of packed-refs under git's packed-refs.lock, the lock every
 * writer of that file takes. A ref exists when packed or loose (a loose ref overrides its packed value), so each is
 * checked against both under the lock; a creator of a loose ref reads packed-refs under its `<ref>.lock`, so after
 * the rename each ref is checked again for a loose file or a lock: a creator that read packed-refs before the rename
 * and so also created it is seen, and the ref is reported lost (the loose value stands). Returns null when the lock
 * stayed busy (the caller writes loose refs instead).
 */
export async function createPacked(commonDir: string, creates: PackedCreate[]): Promise<{ lost: string[] } | null> {
  // packed-refs is the files backend's: a reftable repository (git 2.45+, `.git/reftable/`) never reads it.
  if (existsSync(join(commonDir, 'reftable'))) return null;
  const file = join(commonDir, 'packed-refs');
  const lock = `${file}.lock`;
  let fd: number | null = null;
  for (let waited = 0; fd === null; waited += 20) {
    try {
      fd = openSync(lock, 'wx');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || waited >= LOCK_WAIT_MS) return null;
      await poll(20);
    }
  }
  let renamed = false;
  try {
    const old = readPacked(file);
    const dirs = dirsOf(old.records.keys());
    const occupied = onDisk(commonDir);
    const lost = new Set<string>();
    const fresh: string[] = [];
    for (const c of creates) {
      if (old.records.has(c.ref) || dirs.has(c.ref) || occupied(c.ref) || underRef(old.records, c.ref)) lost.add(c.ref);
      else {
        old.records.set(c.ref, `${c.next} ${c.ref}\n`);
        fresh.push(c.ref);
      }
    }
    if (fresh.length === 0) return { lost: [...lost] };
    // latin1 keeps every byte as one character: names sort by their bytes, as git wants, and are written unchanged.
    const names = [...old.records.keys()].sort();
    writeSync(
      fd,
      (old.existed ? (old.header ?? '') : HEADER) + names.map((n) => old.records.get(n)!).join(''),
      null,
      'latin1',
    );
    // As git keeps it: the mode of the file it replaces (core.sharedRepository's group bits), on disk before the
    // rename, so a crash never leaves a short packed-refs in place of every ref it held.
    if (old.existed) fchmodSync(fd, statSync(file).mode & 0o7777);
    fsyncSync(fd);
    closeSync(fd);
    fd = null;
    renameSync(lock, file);
    renamed = true;
    for (const ref of await shadowed(commonDir, fresh)) lost.add(ref);
    return { lost: [...lost] };
  } finally {
    if (fd !== null) closeSync(fd);
    if (!renamed) rmSync(lock, { force: true });
  }
}

/** packed-refs as its header and one record per ref (its line and any peeled `^` line after it). */
function readPacked(file: string): { header: string | null; records: Map<string, string>; existed: boolean } {
  let text = '';
  try {
    text = readFileSync(file, 'latin1');
  } catch {
    return { header: null, records: new Map(), existed: false };
  }
  const records = new Map<string, string>();
  let header: string | null = null;
  let last: string | null = null;
  for (const line of text.split('\n')) {
    if (!line) continue;
    if (line.startsWith('#')) header = `${line}\n`;
    else if (line.startsWith('^') && last) records.set(last, records.get(last)! + `${line}\n`);
    else {
      last = line.slice(line.indexOf(' ') + 1);
      records.set(last, `${line}\n`);
    }
  }
  // Records are written back sorted: say so, whatever the file said (a header without `sorted` is read as unsorted).
  // A file with no header stays without one: its traits (peeled, fully-peeled) must not be claimed for refs it held.
  if (header && !/ sorted /.test(header)) header = `${header.trimEnd()} sorted \n`;
  return { header, records, existed: true };
}

/**
 * Whether a file or directory (a loose ref, a ref below it, a writer's `<ref>.lock`) is at each name: one readdir per
 * folder, not a stat per ref (a first pull asks about 10,000).
 */
function onDisk(commonDir: string): (name: string) => boolean {
  const folders = new Map<string, Set<string>>();
  return (name) => {
    const cut = name.lastIndexOf('/');
    const dir = name.slice(0, cut);
    let names = folders.get(dir);
    if (!names) {
      try {
        names = new Set(readdirSync(join(commonDir, dir)));
      } catch {
        names = new Set();
      }
      folders.set(dir, names);
    }
    return names.has(name.slice(cut + 1));
  };
}

/**
 * The refs just packed that a loose ref overrides: one there now, or one a writer holding `<ref>.lock` at the
 * rename then wrote (it may have read packed-refs before the rename). Such a writer holds its lock for
 * milliseconds; one that holds it past git's own wait counts as a writer that won.
 */
async function shadowed(commonDir: string, refs: string[]): Promise<string[]> {
  let occupied = onDisk(commonDir);
  const out = new Set(refs.filter((ref) => occupied(ref)));
  let held = refs.filter((ref) => !out.has(ref) && occupied(`${ref}.lock`));
  for (let waited = 0; held.length && waited < LOCK_WAIT_MS; waited += 10) {
    await poll(10);
    occupied = onDisk(commonDir);
    for (const ref of held) if (occupied(ref)) out.add(ref);
    held = held.filter((ref) => !out.has(ref) && occupied(`${ref}.lock`));
  }
  for (const ref of held) out.add(ref);
  return [...out];
}

/** A packed ref that would be a directory of this one (git refuses a ref below another). */
function underRef(records: Map<string, string>, ref: string): boolean {
  for (let i = ref.indexOf('/'); i > 0; i = ref.indexOf('/', i + 1)) if (records.has(ref.slice(0, i))) return true;
  return false;
}

/** Every directory the packed refs sit in (a ref of that name would hold them). */
function dirsOf(names: Iterable<string>): Set<string> {
  const out = new Set<string>();
  for (const n of names)
    for (let i = n.lastIndexOf('/'); i > 0 && !out.has(n.slice(0, i)); i = n.lastIndexOf('/', i - 1))
      out.add(n.slice(0, i));
  return out;
}
