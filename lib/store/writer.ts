import { promises as fsp } from 'node:fs';
import { objectTmpName, writeFileAtomic } from '../core/fsutil.js';
import type { Signature } from '../core/actor.js';

// Object writes through isomorphic-git, in process. isomorphic-git writes loose
// objects in place and skips any path that exists, so a crash mid-write would leave a
// torn object that is never repaired. Invariant: objects are only ever renamed into place,
// from a temp file named as git names its own (tmp_obj_*), so a kill leaves nothing fsck flags.

type IsoGit = typeof import('./isogit.js');
let iso: Promise<IsoGit> | undefined;
const loadIso = () =>
  (iso ??= (() => {
    // isomorphic-git prefers the web CompressionStream when it exists, which drags in
    // Node's fetch implementation (~25 ms measured) for every write; its pako path is
    // fast for objects this small. Nothing else in lazy uses CompressionStream.
    Object.defineProperty(globalThis, 'CompressionStream', { value: undefined, configurable: true, writable: true });
    return import('./isogit.js');
  })());

const atomicFs = {
  promises: {
    ...fsp,
    writeFile: (path: string, data: Uint8Array | string) =>
      path.includes('/objects/') ? writeFileAtomic(path, data, objectTmpName(path)) : fsp.writeFile(path, data),
  },
};

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
    const g = await loadIso();
    return g.writeBlob({ fs: atomicFs, gitdir: this.gitdir, blob: Buffer.from(content, 'utf8') });
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
    const g = await loadIso();
    return g.writeTree({ fs: atomicFs, gitdir: this.gitdir, tree: items.filter((i): i is TreeItem => !!i) });
  }

  private async commit(c: CommitFields & { tree: string }): Promise<string> {
    const g = await loadIso();
    return g.writeCommit({
      fs: atomicFs,
      gitdir: this.gitdir,
      commit: {
        tree: c.tree,
        parent: c.parents,
        message: c.message,
        author: c.author,
        committer: c.committer ?? c.author,
      },
    });
  }
}
