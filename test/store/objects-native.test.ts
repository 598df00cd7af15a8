import t from 'tap';
import { mkdtempSync, rmSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import * as iso from 'isomorphic-git';
import { ObjectWriter, type Entries } from '../../lib/store/writer.js';
import type { Signature } from '../../lib/core/actor.js';

// lib/store/writer.ts writes loose objects with node's zlib and SHA-1: the same objects, byte for byte, as the
// isomorphic-git calls it replaced (so ids, and every store already written, stay the same), and git reads them.

const repo = () => {
  const dir = mkdtempSync(join(tmpdir(), 'lazy-objects-'));
  execFileSync('git', ['init', '-q', '--bare', dir]);
  return dir;
};

const SIGS: Signature[] = [
  { name: 'Ada', email: 'ada@example.com', timestamp: 1764700000, timezoneOffset: 0 },
  { name: 'Bé Ø', email: 'b@x', timestamp: 1764700001, timezoneOffset: -90 },
  { name: 'C', email: 'c@x', timestamp: 1, timezoneOffset: 300 },
  { name: 'D', email: 'd@x', timestamp: 2, timezoneOffset: -0 },
];
const MESSAGES = ['lazy: comment abcd', '\n\nleading lines\r\nand CRs\n\n\n', 'trailers\n\nLazy-Status: working\n'];

t.test('the same blobs, trees and commits as isomorphic-git, and git reads them', async (t) => {
  const [mine, theirs] = [repo(), repo()];
  t.teardown(() => [mine, theirs].forEach((d) => rmSync(d, { recursive: true, force: true })));
  const w = new ObjectWriter(mine);
  const blobs = await Promise.all(['task: 1\n', 'ünïcode ✓\n', ''].map((b) => w.blob(b)));
  for (const [i, b] of ['task: 1\n', 'ünïcode ✓\n', ''].entries())
    t.equal(await iso.writeBlob({ fs: await import('node:fs'), gitdir: theirs, blob: Buffer.from(b) }), blobs[i]);
  // Names that sort differently as trees (a '/' after them) and as blobs, and a nested, an empty, a given tree.
  const root: Entries = new Map<string, Entries extends Map<string, infer V> ? V : never>([
    ['task.yaml', { blob: blobs[0]! }],
    ['turns', new Map([['0001-a.yaml', { blob: blobs[1]! }]])],
    ['turns.x', { blob: blobs[2]! }],
    ['turns-', { blob: blobs[1]! }],
    ['empty', new Map()],
  ]);
  let prev: string | undefined;
  for (const [i, sig] of SIGS.entries()) {
    const message = MESSAGES[i % MESSAGES.length]!;
    const parents = prev ? [prev] : [];
    const oid = await w.writeTreeCommit(root, { parents, message, author: sig, committer: SIGS[0] });
    const tree = execFileSync('git', ['--git-dir', mine, 'rev-parse', `${oid}^{tree}`], { encoding: 'utf8' }).trim();
    const fs = await import('node:fs');
    const sub = await iso.writeTree({
      fs,
      gitdir: theirs,
      tree: [{ mode: '100644', path: '0001-a.yaml', oid: blobs[1]!, type: 'blob' }],
    });
    const theirTree = await iso.writeTree({
      fs,
      gitdir: theirs,
      tree: [
        { mode: '100644', path: 'task.yaml', oid: blobs[0]!, type: 'blob' },
        { mode: '040000', path: 'turns', oid: sub, type: 'tree' },
        { mode: '100644', path: 'turns.x', oid: blobs[2]!, type: 'blob' },
        { mode: '100644', path: 'turns-', oid: blobs[1]!, type: 'blob' },
      ],
    });
    t.equal(tree, theirTree, 'the same tree');
    const theirCommit = await iso.writeCommit({
      fs,
      gitdir: theirs,
      commit: { tree: theirTree, parent: parents, message, author: sig, committer: SIGS[0]! },
    });
    t.equal(oid, theirCommit, `the same commit: ${JSON.stringify(message)} ${sig.timezoneOffset}`);
    prev = oid;
  }
  execFileSync('git', ['--git-dir', mine, 'fsck', '--strict', '--no-dangling']);
  t.notOk(
    readdirSync(join(mine, 'objects'), { recursive: true }).some((f) => String(f).includes('tmp_obj_')),
    'no temp file left',
  );
  await t.rejects(
    w.writeTreeCommit(new Map([['a/b', { blob: blobs[0]! }]]), { parents: [], message: 'x', author: SIGS[0]! }),
  );
});
