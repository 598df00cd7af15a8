import { mkdirSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync } from 'node:fs';
import { createHash, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { writeFileAtomic } from '../../core/fsutil.js';
import { deltaPath } from './files.js';
import { parseRefTips, taskRefsText, taskRefsToFile, type RefTip } from '../refs.js';
import { fileSystemNow } from '../../core/clock.js';
import { TASKS_NS } from '../../core/names.js';

// The task refs as one for-each-ref lists them, and the copy of that text the listing index was last made
// current for. After one comment a list compares the two texts (a common prefix and suffix, at memory speed) and
// re-reads only the refs between, instead of looking up all 100,000 tips.
// Invariant: the stored copy is named by the fingerprint of its own text; a delta naming another fingerprint
// finds no copy and takes the full compare.

const PREFIX = 'index-refs-';
const SPILL = 'refs-';
const STALE_SPILL_MS = 10 * 60_000;
const refsPath = (lazyDir: string, fingerprint: string) => join(lazyDir, `${PREFIX}${fingerprint}.txt`);

/** One for-each-ref's output: the bytes, their fingerprint, the text on demand, and the file it was spilled to. */
export class RefsNow {
  private fingerprint_: string | undefined;
  private text_: string | undefined;
  /** Fingerprints whose stored text was compared and found different. */
  private readonly differs = new Set<string>();
  constructor(
    readonly bytes: Buffer,
    private file: string | undefined,
  ) {}
  get fingerprint(): string {
    return (this.fingerprint_ ??= createHash('sha1').update(this.bytes).digest('hex'));
  }
  get text(): string {
    return (this.text_ ??= this.bytes.toString('utf8'));
  }

  /** Whether this is the stored text: compared byte for byte, so an unchanged store hashes nothing. */
  same(stored: StoredRefs | undefined): boolean {
    if (!stored || (this.fingerprint_ ?? stored.fingerprint) !== stored.fingerprint) return false;
    if (this.differs.has(stored.fingerprint)) return false;
    if (!this.bytes.equals(stored.bytes)) {
      this.differs.add(stored.fingerprint);
      return false;
    }
    this.fingerprint_ = stored.fingerprint;
    return true;
  }

  /** Keeps this text as the one the index is current for (the spilled file renamed, not copied); drops older copies. */
  async adopt(lazyDir: string): Promise<void> {
    const to = refsPath(lazyDir, this.fingerprint);
    if (this.file) renameSync(this.file, to);
    else await writeFileAtomic(to, this.bytes);
    this.file = undefined;
    for (const n of readdirSync(lazyDir)) {
      if (n.startsWith(PREFIX) && n !== `${PREFIX}${this.fingerprint}.txt`) remove(join(lazyDir, n));
      // A list killed while git wrote leaves its spill: one this old belongs to no live list.
      else if (n.startsWith(SPILL) && mtime(join(lazyDir, n)) < fileSystemNow() - STALE_SPILL_MS)
        remove(join(lazyDir, n));
    }
  }

  /** Removes the spilled file unless adopted. */
  discard(): void {
    if (this.file) remove(this.file);
    this.file = undefined;
  }
}

/**
 * Starts one for-each-ref, its output spilled to a file in the index's folder so git runs beside whatever the
 * caller reads meanwhile (a pipe would stall git once full).
 */
export async function refsNow(cwd: string, lazyDir: string): Promise<RefsNow> {
  const file = join(lazyDir, `${SPILL}${randomUUID()}.tmp`);
  try {
    mkdirSync(lazyDir, { recursive: true });
  } catch {
    return new RefsNow(Buffer.from(await taskRefsText(cwd)), undefined);
  }
  try {
    const r = await taskRefsToFile(cwd, file);
    return r.spilled ? new RefsNow(readFileSync(file), file) : new RefsNow(Buffer.from(r.text), undefined);
  } catch (e) {
    remove(file);
    throw e;
  }
}

/** unlink, not rmSync: rmSync's first call loads node's rimraf (3 ms a list pays for one file). */
const remove = (p: string) => {
  try {
    unlinkSync(p);
  } catch {
    /* already gone */
  }
};

const mtime = (p: string) => {
  try {
    return statSync(p).mtimeMs;
  } catch {
    return 0;
  }
};

/**
 * A hint, never a verdict: git's files for the task refs (the loose refs' folder, packed-refs) changed after the
 * delta was last written, so the refs probably moved and tasks will be read.
 */
export function refsLikelyMoved(lazyDir: string): boolean {
  const saved = mtime(deltaPath(lazyDir));
  const gitDir = join(lazyDir, '..');
  return [join(gitDir, TASKS_NS), join(gitDir, 'packed-refs')].some((p) => mtime(p) > saved);
}

/** Past this many lines between the common prefix and suffix, the full compare is as cheap. */
const MAX_REGION_LINES = 4000;

export interface RefChanges {
  /** Refs new, or whose tip moved: their tasks are read again. */
  moved: RefTip[];
  /** Ids whose ref is gone. */
  gone: string[];
}

/** The for-each-ref text the index was made current for, under its fingerprint. */
export interface StoredRefs {
  fingerprint: string;
  bytes: Buffer;
}

export function storedRefs(lazyDir: string, fingerprint: string): StoredRefs | undefined {
  try {
    return { fingerprint, bytes: readFileSync(refsPath(lazyDir, fingerprint)) };
  } catch {
    return undefined;
  }
}

/** What moved since the text stored under `fingerprint`; undefined when none is stored or too much moved. */
export function refChanges(
  lazyDir: string,
  fingerprint: string,
  now: RefsNow,
  known?: StoredRefs,
): RefChanges | undefined {
  const was = (known?.fingerprint === fingerprint ? known : storedRefs(lazyDir, fingerprint))?.bytes;
  if (!was) return undefined;
  const [start, endWas, endNow] = region(was, now.bytes);
  const before = parseRefTips(was.toString('utf8', start, endWas));
  const after = parseRefTips(now.bytes.toString('utf8', start, endNow));
  if (before.length + after.length > MAX_REGION_LINES) return undefined;
  const old = new Map(before.map((r) => [r.id, r.tip]));
  const live = new Set(after.map((r) => r.id));
  return {
    moved: after.filter((r) => old.get(r.id) !== r.tip),
    gone: before.filter((r) => !live.has(r.id)).map((r) => r.id),
  };
}

const NL = 10;

/** The lines that differ: from the first differing line's start to the end of the last, in each text. */
function region(a: Buffer, b: Buffer): [number, number, number] {
  const n = Math.min(a.length, b.length);
  // Whole chunks first, compared natively; then byte by byte within the chunk that differs.
  const CHUNK = 1 << 14;
  let i = 0;
  while (i + CHUNK <= n && a.compare(b, i, i + CHUNK, i, i + CHUNK) === 0) i += CHUNK;
  while (i < n && a[i] === b[i]) i++;
  const start = i === 0 ? 0 : a.lastIndexOf(NL, i - 1) + 1;
  let j = 0;
  const m = n - start;
  while (j + CHUNK <= m && a.compare(b, b.length - j - CHUNK, b.length - j, a.length - j - CHUNK, a.length - j) === 0)
    j += CHUNK;
  while (j < m && a[a.length - 1 - j] === b[b.length - 1 - j]) j++;
  // Cut both at the same line break inside the common suffix: what follows is whole lines, alike in both.
  const nl = a.indexOf(NL, a.length - j);
  if (nl < 0) return [start, a.length, b.length];
  return [start, nl + 1, b.length - (a.length - nl) + 1];
}
