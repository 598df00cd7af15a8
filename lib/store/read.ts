import { invalidData, LazyError, notFound } from '../core/errors.js';
import type { EntryKind, SessionDoc, TaskDoc, TaskDocs } from '../model/docs.js';
import { replayStatus } from '../model/fold.js';
import { ObjectReader, parseCommit, parseTree, type GitObject, type TreeEntry } from './objects.js';
import { ENTRY_DIRS, parseEntryName, SESSIONS_DIR, TASK_FILE } from './layout.js';
import { ENTRY_SCHEMA, readDoc, type DocKind } from './validate.js';
import { archiveRef, taskRef } from '../core/names.js';
import { archivedOne, shardOf } from './archive/map.js';

// Reads task trees in four rounds (commits, root trees, subtrees, blobs), every task in
// each round, through one cat-file process; then parses every document at once. Each
// round is a batch (one read for all tasks) and a judge per task, a plain function of
// what the task asked for and got. Every document is schema-checked; a bad task becomes
// an error value naming ref, object and path, and never stops the others.

export interface TreeSnapshot {
  tree: string;
  root: TreeEntry[];
  dirs: Map<string, TreeEntry[]>;
}

export interface TaskRead {
  docs: TaskDocs;
  snap: TreeSnapshot;
  /** Read from the archive (no live ref): a write brings it back with a create-only ref. */
  archived?: true;
}

const DIR_NAMES = new Set<string>([SESSIONS_DIR, ...ENTRY_DIRS]);

/** Where a task is read from: `tip` a commit oid or ref name, `ref` the name errors give. */
interface Source {
  id: string;
  ref: string;
  tip: string;
}
/** After round 1: the commit, resolved. */
interface Committed extends Source {
  tree: string;
}
/** After round 2 (root tree) and round 3 (its subtrees). */
interface Treed extends Committed {
  snap: TreeSnapshot;
}
/** One document of a task, read in round 4. */
interface DocBlob {
  ref: string;
  file: string;
  oid: string;
  data?: Buffer;
}
/** After round 4: every document's bytes. */
interface Loaded extends Treed {
  blobs: DocBlob[];
}
/** Each round's value per task: the next stage, or why this task cannot be read. */
type Stage<T> = T | LazyError;
/** The objects a task asked a round for, in the order asked (null: not in the repository). */
type Got = (GitObject | null)[];
type Collected = Omit<TaskDocs, 'id' | 'tip' | 'task'> & { task?: TaskDoc };

const bad = (s: { ref: string }, message: string, details: Record<string, unknown>) =>
  invalidData(`${s.ref}: ${message}`, { ref: s.ref, ...details });

/**
 * One batch over every task still readable: each names what it wants, `fetch` gets all of it
 * at once (one cat-file round, or every parse), and `judge` decides each task from its own
 * share. A task that failed earlier passes through.
 */
async function batch<T, W, R, U>(
  tasks: readonly Stage<T>[],
  wants: (t: T) => W[],
  fetch: (all: W[]) => Promise<R[]>,
  judge: (t: T, wanted: W[], got: R[]) => Stage<U>,
): Promise<Stage<U>[]> {
  const wanted = tasks.map((t) => (t instanceof LazyError ? [] : wants(t)));
  const got = await fetch(wanted.flat());
  let at = 0;
  return tasks.map((t, i) => {
    const mine = got.slice(at, (at += wanted[i]!.length));
    return t instanceof LazyError ? t : judge(t, wanted[i]!, mine);
  });
}

export class TaskReader {
  readonly objects: ObjectReader;
  constructor(cwd: string) {
    this.objects = new ObjectReader(cwd);
  }

  close(): void {
    this.objects.close();
  }

  /** Reads one task by id; throws not-found (3) or invalid-data (6). */
  async readOne(id: string): Promise<TaskRead> {
    const r = (await this.readMany([{ id, tip: taskRef(id) }])).get(id)!;
    if (!(r instanceof LazyError)) return r;
    if (r.code !== 'task_not_found') throw r;
    return this.readArchived(id, r);
  }

  /** A task with no live ref, read at the tip the archive holds for it (lazy archive); `missing` when it is not there. */
  private async readArchived(id: string, missing: LazyError): Promise<TaskRead> {
    const a = await archivedOne(this.objects, id);
    if (!a) throw missing;
    const r = (await this.readMany([{ id, tip: a.tip, ref: archiveRef(shardOf(id)) }])).get(id)!;
    if (r instanceof LazyError) throw r;
    return { ...r, archived: true };
  }

  /** `tip` may be a commit oid or the ref name; `ref` names the source in errors (default: the task ref). */
  async readMany(
    list: readonly { id: string; tip: string; ref?: string }[],
  ): Promise<Map<string, TaskRead | LazyError>> {
    const read = (all: { oid: string }[]) => this.objects.readMany(all.map((w) => w.oid));
    const sources: Source[] = list.map((t) => ({ id: t.id, ref: t.ref ?? taskRef(t.id), tip: t.tip }));
    // Four cat-file rounds (every task in each), then one parse of every document.
    const commits = await batch(sources, (s) => [{ oid: s.tip }], read, commitOf);
    const roots = await batch(commits, (c) => [{ oid: c.tree }], read, rootOf);
    const trees = await batch(roots, subtrees, read, subtreesOf);
    const loaded = await batch(trees, blobsOf, read, blobsIn);
    const tasks = await batch(loaded, (l) => l.blobs, parseAll, docsOf);
    return new Map(tasks.map((r, i) => [sources[i]!.id, r]));
  }
}

/** Round 1: the tip is a commit; its oid and tree are what the next rounds read. */
function commitOf(s: Source, _: unknown, [c]: Got): Stage<Committed> {
  if (!c) return notFound(`no task '${s.id}'`, { id: s.id });
  if (c.type !== 'commit' || c.oversize)
    return bad(s, c.oversize ? `its commit is ${c.oversize} bytes` : `points at a ${c.type}, not a commit`, {
      object: c.oid,
    });
  return { ...s, tip: c.oid, tree: parseCommit(c.data).tree };
}

/** Round 2: the root tree holds task.yaml and only the known directories. */
function rootOf(c: Committed, _: unknown, [t]: Got): Stage<Treed> {
  if (!t || t.type !== 'tree' || t.oversize)
    return bad(c, t?.oversize ? `its tree is ${t.oversize} bytes` : 'commit tree is missing', { object: c.tree });
  try {
    const root = parseTree(t.data);
    for (const e of root) {
      if (e.name === TASK_FILE ? e.mode !== '100644' : !(DIR_NAMES.has(e.name) && e.mode === '40000'))
        return bad(c, `unexpected entry '${e.name}' in the task tree`, { object: c.tree, file: e.name, path: '/' });
    }
    if (!root.some((e) => e.name === TASK_FILE))
      return bad(c, `has no ${TASK_FILE}`, { object: c.tree, file: TASK_FILE, path: '/' });
    return { ...c, snap: { tree: c.tree, root, dirs: new Map() } };
  } catch (e) {
    return bad(c, (e as Error).message, { object: c.tree });
  }
}

const subtrees = (t: Treed) => t.snap.root.filter((e) => e.mode === '40000');

/** Round 3: each directory holds only files named as its entries are. */
function subtreesOf(t: Treed, subs: TreeEntry[], got: Got): Stage<Treed> {
  const dirs = new Map<string, TreeEntry[]>();
  for (let i = 0; i < subs.length; i++) {
    const e = subs[i]!;
    const o = got[i];
    if (!o || o.type !== 'tree' || o.oversize)
      return bad(t, o?.oversize ? `${e.name}/ is ${o.oversize} bytes` : `${e.name}/ is missing`, {
        object: e.oid,
        file: e.name,
      });
    try {
      const entries = parseTree(o.data);
      for (const x of entries) {
        const ok =
          x.mode === '100644' &&
          (e.name === SESSIONS_DIR ? /^[0-9a-z]{8}\.yaml$/.test(x.name) : !!parseEntryName(x.name));
        if (!ok)
          return bad(t, `unexpected entry '${e.name}/${x.name}'`, {
            object: e.oid,
            file: `${e.name}/${x.name}`,
            path: '/',
          });
      }
      dirs.set(e.name, entries);
    } catch (err) {
      return bad(t, (err as Error).message, { object: e.oid, file: e.name });
    }
  }
  return { ...t, snap: { ...t.snap, dirs } };
}

/** The documents of a task: task.yaml first, then every directory's files. */
const blobsOf = (t: Treed): DocBlob[] => [
  { ref: t.ref, file: TASK_FILE, oid: t.snap.root.find((e) => e.name === TASK_FILE)!.oid },
  ...[...t.snap.dirs].flatMap(([dir, entries]) =>
    entries.map((x) => ({ ref: t.ref, file: `${dir}/${x.name}`, oid: x.oid })),
  ),
];

/** Round 4: every document is present and within the size limit. */
function blobsIn(t: Treed, blobs: DocBlob[], got: Got): Stage<Loaded> {
  const loaded: DocBlob[] = [];
  for (let i = 0; i < blobs.length; i++) {
    const b = blobs[i]!;
    const o = got[i];
    if (!o || o.type !== 'blob') return bad(t, `${b.file} is missing`, { object: b.oid, file: b.file });
    if (o.oversize)
      return bad(t, `${b.file} is ${o.oversize} bytes, larger than any document lazy reads`, {
        object: b.oid,
        file: b.file,
        path: '/',
      });
    loaded.push({ ...b, data: o.data });
  }
  return { ...t, blobs: loaded };
}

type Parsed =
  | { kind: 'task'; doc: { id: string } }
  | { kind: 'session'; doc: { id: string } }
  | { kind: 'entry'; dir: EntryKind; doc: { id: string; clock: number } };

const parseAll = (blobs: DocBlob[]) => Promise.all(blobs.map(parseBlob));

/** One document, schema-checked; a session's or entry's file name must match its content. */
async function parseBlob(b: DocBlob): Promise<Stage<Parsed>> {
  const where = { ref: b.ref, object: b.oid, file: b.file };
  const dir = b.file.includes('/') ? b.file.slice(0, b.file.indexOf('/')) : '';
  const kind: DocKind = dir === '' ? 'task' : dir === SESSIONS_DIR ? 'session' : ENTRY_SCHEMA[dir as EntryKind];
  try {
    const doc = await readDoc<{ id: string; clock: number }>(kind, b.data!.toString('utf8'), where);
    const name = b.file.slice(dir.length + 1);
    if (kind === 'task') return { kind: 'task', doc };
    if (kind === 'session') {
      if (name === `${doc.id}.yaml`) return { kind: 'session', doc };
      return invalidData(`${b.ref}:${b.file} holds session ${doc.id}`, { ...where, path: '/id' });
    }
    const named = parseEntryName(name);
    if (named && named.id === doc.id && named.clock === doc.clock) return { kind: 'entry', dir: dir as EntryKind, doc };
    return invalidData(`${b.ref}:${b.file} does not match its id/clock (${doc.id}@${doc.clock})`, {
      ...where,
      path: '/id',
    });
  } catch (e) {
    return e instanceof LazyError ? e : invalidData(String(e), where);
  }
}

/**
 * The documents, valid each, and together naming their own task and holding its creation
 * entry. The first failure in blob order is the task's error.
 */
function docsOf(t: Loaded, _: unknown, parsed: Stage<Parsed>[]): Stage<TaskRead> {
  const d: Collected = { sessions: [], turns: [], changelog: [], violations: [], decisions: [] };
  for (const p of parsed) {
    if (p instanceof LazyError) return p;
    if (p.kind === 'task') d.task = p.doc as unknown as TaskDoc;
    else if (p.kind === 'session') d.sessions.push(p.doc as unknown as SessionDoc);
    else (d[p.dir] as unknown[]).push(p.doc);
  }
  if (d.task!.id !== t.id) return bad(t, `${TASK_FILE} holds task ${d.task!.id}`, { file: TASK_FILE, path: '/id' });
  if (replayStatus(d.changelog).status === null)
    return bad(t, 'has no creation entry in changelog/', { file: 'changelog', path: '/' });
  return { docs: { ...d, id: t.id, tip: t.tip, task: d.task! }, snap: t.snap };
}
