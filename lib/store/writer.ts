import { promises as fsp } from 'node:fs';
import { join } from 'node:path';
import { objectTmpName, writeFileAtomic } from '../core/fsutil.js';
import type { Signature } from '../core/actor.js';

// Loose objects, written in process with node's own zlib and SHA-1: the bytes isomorphic-git's writeBlob,
// writeTree and writeCommit wrote (test/store/objects-native.test.ts holds them to it), at a fraction of the cost
// (its pure-JS deflate, and loading it, were a third of a comment's time; docs/benchmarks.md).
// Invariant: objects are only ever renamed into place, from a temp file named as git names its own (tmp_obj_*),
// so a kill leaves nothing fsck flags; an object already there is left alone, as git leaves it.

type Kind = 'blob' | 'tree' | 'commit';

/** Writes one object (unless it is there already) and returns its id. */
async function writeObject(gitdir: string, kind: Kind, body: Buffer): Promise<string> {
  // Loaded by the first write: a command that writes nothing never loads zlib.
  const [{ createHash }, { deflateSync }] = await Promise.all([import('node:crypto'), import('node:zlib')]);
  const raw = Buffer.concat([Buffer.from(`${kind} ${body.length}\0`), body]);
  const oid = createHash('sha1').update(raw).digest('hex');
  const path = join(gitdir, 'objects', oid.slice(0, 2), oid.slice(2));
  const there = await fsp.access(path).then(
    () => true,
    () => false,
  );
  if (!there) await writeFileAtomic(path, deflateSync(raw), objectTmpName(path));
  return oid;
}

/** `Name <email> 1700000000 +0100`, the offset as JS gives it (minutes west, -0 kept as -0000). */
function person(s: Signature): string {
  const west = s.timezoneOffset;
  const east = west === 0 ? west : -west;
  const sign = (Math.sign(east) || (Object.is(east, -0) ? -1 : 1)) === -1 ? '-' : '+';
  const abs = Math.abs(west);
  const hm = `${String(Math.floor(abs / 60)).padStart(2, '0')}${String(abs % 60).padStart(2, '0')}`;
  return `${s.name} <${s.email}> ${s.timestamp} ${sign}${hm}`;
}

/** git's message form: no carriage returns, no leading blank lines, one newline at the end. */
const messageText = (m: string) => `${m.replace(/\r/g, '').replace(/^\n+/, '').replace(/\n+$/, '')}\n`;

/** A tree entry's name: one path component, never one git refuses. */
function entryName(name: string): Buffer {
  if (!name || name === '.' || name === '..' || name.toLowerCase() === '.git' || /[/\\\0]/.test(name))
    throw new Error(`not a tree entry name: ${JSON.stringify(name)}`);
  return Buffer.from(name, 'utf8');
}

interface TreeItem {
  mode: '100644' | '040000';
  path: string;
  oid: string;
  type: 'blob' | 'tree';
}

/** What a tree holds, by name: a blob, a tree already written, or the entries of a subtree to write. */
export type Entries = Map<string, { blob: string } | { tree: string } | Entries>;

export interface CommitFields {
  parents: string[];
  message: string;
  author: Signature;
  committer?: Signature;
}

export class ObjectWriter {
  constructor(private readonly gitdir: string) {}

  async blob(content: string): Promise<string> {
    return writeObject(this.gitdir, 'blob', Buffer.from(content, 'utf8'));
  }

  /** The one way lazy builds a commit: its trees first (an empty subtree is left out, as git does), then the commit. */
  async writeTreeCommit(root: Entries, c: CommitFields): Promise<string> {
    return this.commit({ ...c, tree: await this.tree(root) });
  }

  /** A commit of a tree already written (a status-neutral commit that keeps its parent's tree). */
  writeCommit(tree: string, c: CommitFields): Promise<string> {
    return this.commit({ ...c, tree });
  }

  private async tree(entries: Entries): Promise<string> {
    const items = await Promise.all(
      [...entries].map(async ([path, e]): Promise<TreeItem | null> => {
        if (e instanceof Map) return e.size ? { mode: '040000', path, oid: await this.tree(e), type: 'tree' } : null;
        return 'tree' in e
          ? { mode: '040000', path, oid: e.tree, type: 'tree' }
          : { mode: '100644', path, oid: e.blob, type: 'blob' };
      }),
    );
    // git's order: by bytes, a tree's name as if it ended in '/'.
    const named = items
      .filter((i): i is TreeItem => !!i)
      .map((i) => ({ ...i, key: Buffer.from(i.type === 'tree' ? `${i.path}/` : i.path, 'utf8') }))
      .sort((a, b) => Buffer.compare(a.key, b.key));
    const body = named.flatMap((i) => [
      Buffer.from(`${i.mode.replace(/^0/, '')} `),
      entryName(i.path),
      Buffer.from([0]),
      Buffer.from(i.oid, 'hex'),
    ]);
    return writeObject(this.gitdir, 'tree', Buffer.concat(body));
  }

  private async commit(c: CommitFields & { tree: string }): Promise<string> {
    const head = [
      `tree ${c.tree}`,
      ...c.parents.map((p) => `parent ${p}`),
      `author ${person(c.author)}`,
      `committer ${person(c.committer ?? c.author)}`,
    ];
    return writeObject(this.gitdir, 'commit', Buffer.from(`${head.join('\n')}\n\n${messageText(c.message)}`, 'utf8'));
  }
}
