import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { GIT_ENV } from '../core/git.js';
import { gitFailed, gitMissing } from '../core/errors.js';
import { env } from '../core/env.js';

// Bulk object reads through one long-lived `git cat-file --batch-command --buffer`.
// Requests are pipelined: a caller sends every name it needs for one round, then flushes.

export interface GitObject {
  oid: string;
  type: string;
  data: Buffer;
  /** Set instead of data when the object exceeds the reader's limit. */ oversize?: number;
}

interface Pending {
  resolve: (o: GitObject | null) => void;
  reject: (e: Error) => void;
  /** An `info` request: git answers with the header line alone. */
  info?: true;
}

/** Objects larger than this are skipped unread: a hostile remote cannot make a read cost memory. */
export const MAX_OBJECT_BYTES = 8 * 1024 * 1024;

export class ObjectReader {
  private child: ChildProcessWithoutNullStreams | undefined;
  // A FIFO of waiting reads; `head` advances instead of Array#shift, which is O(n) per
  // call and made a 30,000-object bulk read quadratic.
  private queue: Pending[] = [];
  private head = 0;
  // Incoming bytes: chunks are joined once an object is complete, never chunk by chunk.
  private chunks: Buffer[] = [];
  private len = 0;
  private need = 0;
  private skip = 0;

  constructor(private readonly cwd: string) {}

  /** Starts git now, so a read that may follow finds it ready. */
  warm(): void {
    this.start();
  }

  private start(): ChildProcessWithoutNullStreams {
    if (this.child) return this.child;
    const child = spawn('git', ['cat-file', '--batch-command', '--buffer'], {
      cwd: this.cwd,
      env: { ...env(), ...GIT_ENV },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    child.stdout.on('data', (d: Buffer) => this.onData(d));
    // A git that ended (killed, or missing) fails the reads it owed; the next read starts another.
    const fail = (e: Error) => {
      if (this.child !== child) return;
      this.child = undefined;
      const owed = this.queue.slice(this.head);
      this.queue = [];
      this.head = 0;
      this.chunks = [];
      this.len = this.need = this.skip = 0;
      for (const p of owed) p.reject(e);
    };
    child.on('error', (e: NodeJS.ErrnoException) =>
      fail(e.code === 'ENOENT' ? gitMissing('git is not installed or not on PATH') : e),
    );
    child.on('close', (code, signal) => fail(gitFailed(`git cat-file exited ${signal ?? code}: ${stderr.trim()}`)));
    child.stdin.on('error', () => {
      /* reported through 'close' */
    });
    this.child = child;
    return child;
  }

  private pending(): number {
    return this.queue.length - this.head;
  }

  private next(): Pending {
    const p = this.queue[this.head++]!;
    if (this.head === this.queue.length) {
      this.queue = [];
      this.head = 0;
    }
    return p;
  }

  private onData(chunk: Buffer): void {
    if (this.skip) {
      const n = Math.min(this.skip, chunk.length);
      this.skip -= n;
      chunk = chunk.subarray(n);
      if (!chunk.length) return;
    }
    this.chunks.push(chunk);
    this.len += chunk.length;
    if (this.need && this.len < this.need) return; // still waiting for the rest of one object
    const buf = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.len);
    let pos = 0;
    this.need = 0;
    while (this.pending() > 0) {
      const nl = buf.indexOf(10, pos);
      if (nl < 0) break;
      const parts = buf.toString('utf8', pos, nl).split(' ');
      if (parts.length !== 3) {
        // "<name> missing" or "<name> ambiguous"
        this.next().resolve(null);
        pos = nl + 1;
        continue;
      }
      const size = Number(parts[2]);
      if (this.queue[this.head]!.info) {
        this.next().resolve({ oid: parts[0]!, type: parts[1]!, data: Buffer.alloc(0) });
        pos = nl + 1;
        continue;
      }
      const end = nl + 1 + size + 1;
      if (size > MAX_OBJECT_BYTES) {
        this.next().resolve({ oid: parts[0]!, type: parts[1]!, data: Buffer.alloc(0), oversize: size });
        if (end > buf.length) {
          this.skip = end - buf.length;
          pos = buf.length;
          break;
        }
        pos = end;
        continue;
      }
      if (buf.length < end) {
        this.need = end - pos;
        break;
      }
      this.next().resolve({ oid: parts[0]!, type: parts[1]!, data: Buffer.from(buf.subarray(nl + 1, nl + 1 + size)) });
      pos = end;
    }
    const rest = pos >= buf.length ? null : buf.subarray(pos);
    this.chunks = rest ? [rest] : [];
    this.len = rest ? rest.length : 0;
  }

  /** Reads many objects in one round trip; a missing object reads as null. */
  async readMany(names: readonly string[]): Promise<(GitObject | null)[]> {
    if (names.length === 0) return [];
    const child = this.start();
    const results = names.map((name) => {
      if (/[\n\r]/.test(name)) return Promise.resolve(null);
      return new Promise<GitObject | null>((resolve, reject) => this.queue.push({ resolve, reject }));
    });
    child.stdin.write(
      names
        .filter((n) => !/[\n\r]/.test(n))
        .map((n) => `contents ${n}\n`)
        .join('') + 'flush\n',
    );
    return Promise.all(results);
  }

  async read(name: string): Promise<GitObject | null> {
    return (await this.readMany([name]))[0]!;
  }

  /**
   * The commits many revisions name (refs, `<rev>^{commit}`…), in one round trip to the same git: null where
   * one names nothing. What `git rev-parse --verify` answers, without a process each.
   */
  async resolveMany(revs: readonly string[]): Promise<(string | null)[]> {
    if (revs.length === 0) return [];
    const child = this.start();
    // A ref name has no whitespace; one that does would make "<name> missing" read as an answer.
    const ok = (r: string) => !/\s/.test(r);
    const results = revs.map((rev) =>
      ok(rev)
        ? new Promise<GitObject | null>((resolve, reject) => this.queue.push({ resolve, reject, info: true }))
        : Promise.resolve(null),
    );
    child.stdin.write(
      revs
        .filter(ok)
        .map((r) => `info ${r}^{commit}\n`)
        .join('') + 'flush\n',
    );
    return (await Promise.all(results)).map((o) => o?.oid ?? null);
  }

  close(): void {
    const child = this.child;
    this.child = undefined;
    child?.stdin.end();
  }
}

export interface TreeEntry {
  mode: string;
  name: string;
  oid: string;
}

export function parseTree(data: Buffer): TreeEntry[] {
  const out: TreeEntry[] = [];
  let i = 0;
  while (i < data.length) {
    const sp = data.indexOf(32, i);
    const nul = data.indexOf(0, sp);
    if (sp < 0 || nul < 0 || nul + 21 > data.length) throw new Error('malformed tree object');
    out.push({
      mode: data.toString('latin1', i, sp),
      name: data.toString('utf8', sp + 1, nul),
      oid: data.toString('hex', nul + 1, nul + 21),
    });
    i = nul + 21;
  }
  return out;
}

export interface CommitInfo {
  tree: string;
  parents: string[];
  message: string;
  author: string;
  committer: string;
}

export function parseCommit(data: Buffer): CommitInfo {
  const text = data.toString('utf8');
  const split = text.indexOf('\n\n');
  const head = split < 0 ? text : text.slice(0, split);
  const info: CommitInfo = {
    tree: '',
    parents: [],
    message: split < 0 ? '' : text.slice(split + 2),
    author: '',
    committer: '',
  };
  for (const line of head.split('\n')) {
    if (line.startsWith('tree ')) info.tree = line.slice(5);
    else if (line.startsWith('parent ')) info.parents.push(line.slice(7));
    else if (line.startsWith('author ')) info.author = line.slice(7);
    else if (line.startsWith('committer ')) info.committer = line.slice(10);
  }
  return info;
}
