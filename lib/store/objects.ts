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

/**
 * One `git cat-file` and what it owes: its own queue and parse state, so replies are only ever matched to
 * the requests sent to the same git (a reader that closed one and started another never mixes them).
 */
class Batch {
  readonly child: ChildProcessWithoutNullStreams;
  // A FIFO of waiting reads; `head` advances instead of Array#shift, which is O(n) per
  // call and made a 30,000-object bulk read quadratic.
  private queue: Pending[] = [];
  private head = 0;
  // Incoming bytes: chunks are joined once an object is complete, never chunk by chunk.
  private chunks: Buffer[] = [];
  private len = 0;
  private need = 0;
  private skip = 0;

  /** `ended` runs once when this git is gone (killed, missing, or closed), after it failed what it owed. */
  constructor(cwd: string, ended: (b: Batch) => void) {
    this.child = spawn('git', ['cat-file', '--batch-command', '--buffer'], {
      cwd,
      env: { ...env(), ...GIT_ENV },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const child = this.child;
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    child.stdout.on('data', (d: Buffer) => this.onData(d));
    let done = false;
    const fail = (e: Error) => {
      if (done) return;
      done = true;
      const owed = this.queue.slice(this.head);
      this.queue = [];
      this.head = 0;
      for (const p of owed) p.reject(e);
      ended(this);
    };
    child.on('error', (e: NodeJS.ErrnoException) =>
      fail(e.code === 'ENOENT' ? gitMissing('git is not installed or not on PATH') : e),
    );
    child.on('close', (code, signal) => fail(gitFailed(`git cat-file exited ${signal ?? code}: ${stderr.trim()}`)));
    child.stdin.on('error', () => {
      /* reported through 'close' */
    });
  }

  /** Sends one round of commands; the promises settle in order as git answers. */
  send(requests: Pending[], commands: string): void {
    for (const r of requests) this.queue.push(r);
    this.child.stdin.write(commands);
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
}

export class ObjectReader {
  private batch: Batch | undefined;

  constructor(private readonly cwd: string) {}

  /** Starts git now, so a read that may follow finds it ready. */
  warm(): void {
    this.start();
  }

  // A git that ended (killed, or missing) has failed the reads it owed; the next read starts another.
  private start(): Batch {
    this.batch ??= new Batch(this.cwd, (b) => void (this.batch === b && (this.batch = undefined)));
    return this.batch;
  }

  /** One round trip: an answer per item, in order; `line` is an item's command, null for one never sent (no answer). */
  private round(
    items: readonly string[],
    line: (x: string) => string | null,
    info: boolean,
  ): Promise<(GitObject | null)[]> {
    if (items.length === 0) return Promise.resolve([]);
    const batch = this.start();
    const sent: Pending[] = [];
    let commands = '';
    const results = items.map((x) => {
      const cmd = line(x);
      if (cmd === null) return Promise.resolve(null);
      commands += cmd;
      return new Promise<GitObject | null>((resolve, reject) =>
        sent.push(info ? { resolve, reject, info: true } : { resolve, reject }),
      );
    });
    batch.send(sent, commands + 'flush\n');
    return Promise.all(results);
  }

  /** Reads many objects in one round trip; a missing object reads as null. */
  readMany(names: readonly string[]): Promise<(GitObject | null)[]> {
    return this.round(names, (n) => (/[\n\r]/.test(n) ? null : `contents ${n}\n`), false);
  }

  async read(name: string): Promise<GitObject | null> {
    return (await this.readMany([name]))[0]!;
  }

  /** Whether each object is here, whatever its type, in one round trip (its header only, not its contents). */
  async exist(oids: readonly string[]): Promise<boolean[]> {
    const answers = await this.round(oids, (o) => (/\s/.test(o) ? null : `info ${o}\n`), true);
    return answers.map((o) => o !== null);
  }

  /**
   * The commits many revisions name (refs, `<rev>^{commit}`…), in one round trip to the same git: null where
   * one names nothing. What `git rev-parse --verify` answers, without a process each.
   */
  async resolveMany(revs: readonly string[]): Promise<(string | null)[]> {
    // A ref name has no whitespace; one that does would make "<name> missing" read as an answer.
    const answers = await this.round(revs, (r) => (/\s/.test(r) ? null : `info ${r}^{commit}\n`), true);
    return answers.map((o) => o?.oid ?? null);
  }

  /** Ends git once it has answered what it owes (those reads still settle); the next read starts another. */
  close(): void {
    const batch = this.batch;
    this.batch = undefined;
    batch?.child.stdin.end();
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
