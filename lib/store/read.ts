import { invalidData, LazyError, notFound } from '../core/errors.js';
import type { EntryKind, SessionDoc, TaskDoc, TaskDocs } from '../model/docs.js';
import { replayStatus } from '../model/fold.js';
import { ObjectReader, parseCommit, parseTree, type GitObject, type TreeEntry } from './objects.js';
import { ENTRY_DIRS, parseEntryName, SESSIONS_DIR, TASK_FILE, taskRef } from './layout.js';
import { ENTRY_SCHEMA, readDoc, type DocKind } from './validate.js';

// Reads task trees in four rounds (commits, root trees, subtrees, blobs), every task in
// each round, through one cat-file process. Every document is schema-checked; a bad task
// becomes an error value naming ref, object and path, and never stops the others.

export interface TreeSnapshot {
  tree: string;
  root: TreeEntry[];
  dirs: Map<string, TreeEntry[]>;
}

export interface TaskRead {
  docs: TaskDocs;
  snap: TreeSnapshot;
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
/** Each round's value per task: the next stage, or why this task cannot be read. */
type Stage<T> = T | LazyError;
type Collected = Omit<TaskDocs, 'id' | 'tip' | 'task'> & { task?: TaskDoc };

const bad = (s: Source, message: string, details: Record<string, unknown>) =>
  invalidData(`${s.ref}: ${message}`, { ref: s.ref, ...details });

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
    if (r instanceof LazyError) throw r;
    return r;
  }

  /** `tip` may be a commit oid or the ref name; `ref` names the source in errors (default: the task ref). */
  async readMany(
    list: readonly { id: string; tip: string; ref?: string }[],
  ): Promise<Map<string, TaskRead | LazyError>> {
    const sources: Source[] = list.map((t) => ({ id: t.id, ref: t.ref ?? taskRef(t.id), tip: t.tip }));
    const commits = await this.round(sources, (s) => [s.tip], commitOf);
    const roots = await this.round(commits, (c) => [c.tree], rootOf);
    const trees = await this.round(roots, subtreeOids, subtreesOf);
    const read = await this.round(trees, blobOids, docsOf);
    return new Map(read.map((r, i) => [sources[i]!.id, r]));
  }

  /**
   * One cat-file round: every task still readable names the objects it needs, all are read
   * in one batch, and each task judges its own; a task that failed earlier passes through.
   */
  private async round<T, U>(
    tasks: readonly Stage<T>[],
    wants: (t: T) => string[],
    judge: (t: T, objs: (GitObject | null)[]) => Stage<U> | Promise<Stage<U>>,
  ): Promise<Stage<U>[]> {
    const wanted = tasks.map((t) => (t instanceof LazyError ? [] : wants(t)));
    const objs = await this.objects.readMany(wanted.flat());
    let at = 0;
    return Promise.all(
      tasks.map((t, i) => {
        const mine = objs.slice(at, (at += wanted[i]!.length));
        return t instanceof LazyError ? t : judge(t, mine);
      }),
    );
  }
}

/** Round 1: the tip is a commit; its oid and tree are what the next rounds read. */
function commitOf(s: Source, [c]: (GitObject | null)[]): Stage<Committed> {
  if (!c) return notFound(`no task '${s.id}'`, { id: s.id });
  if (c.type !== 'commit' || c.oversize)
    return bad(s, c.oversize ? `its commit is ${c.oversize} bytes` : `points at a ${c.type}, not a commit`, {
      object: c.oid,
    });
  return { ...s, tip: c.oid, tree: parseCommit(c.data).tree };
}

/** Round 2: the root tree holds task.yaml and only the known directories. */
function rootOf(c: Committed, [t]: (GitObject | null)[]): Stage<Treed> {
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
const subtreeOids = (t: Treed) => subtrees(t).map((e) => e.oid);

/** Round 3: each directory holds only files named as its entries are. */
function subtreesOf(t: Treed, objs: (GitObject | null)[]): Stage<Treed> {
  const dirs = new Map<string, TreeEntry[]>();
  for (const [i, e] of subtrees(t).entries()) {
    const o = objs[i];
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
const blobsOf = (t: Treed) => [
  { file: TASK_FILE, oid: t.snap.root.find((e) => e.name === TASK_FILE)!.oid },
  ...[...t.snap.dirs].flatMap(([dir, entries]) => entries.map((x) => ({ file: `${dir}/${x.name}`, oid: x.oid }))),
];
const blobOids = (t: Treed) => blobsOf(t).map((b) => b.oid);

/**
 * Round 4: every document is present, within the size limit and valid, and together they
 * name their own task and hold its creation entry. The first failure in blob order is the task's error.
 */
async function docsOf(t: Treed, objs: (GitObject | null)[]): Promise<Stage<TaskRead>> {
  const blobs = blobsOf(t);
  for (const [i, b] of blobs.entries()) {
    const o = objs[i];
    if (!o || o.type !== 'blob') return bad(t, `${b.file} is missing`, { object: b.oid, file: b.file });
    if (o.oversize)
      return bad(t, `${b.file} is ${o.oversize} bytes, larger than any document lazy reads`, {
        object: b.oid,
        file: b.file,
        path: '/',
      });
  }
  const parsed = await Promise.all(blobs.map((b, i) => parseBlob(t, b, objs[i]!.data)));
  const failed = parsed.find((p) => p instanceof LazyError);
  if (failed) return failed;
  const d: Collected = { sessions: [], turns: [], changelog: [], violations: [], decisions: [] };
  for (const p of parsed as Parsed[]) {
    if (p.kind === 'task') d.task = p.doc as unknown as TaskDoc;
    else if (p.kind === 'session') d.sessions.push(p.doc as unknown as SessionDoc);
    else (d[p.dir] as unknown[]).push(p.doc);
  }
  if (d.task!.id !== t.id) return bad(t, `${TASK_FILE} holds task ${d.task!.id}`, { file: TASK_FILE, path: '/id' });
  if (replayStatus(d.changelog).status === null)
    return bad(t, 'has no creation entry in changelog/', { file: 'changelog', path: '/' });
  return { docs: { ...d, id: t.id, tip: t.tip, task: d.task! }, snap: t.snap };
}

type Parsed =
  | { kind: 'task'; doc: { id: string } }
  | { kind: 'session'; doc: { id: string } }
  | { kind: 'entry'; dir: EntryKind; doc: { id: string; clock: number } };

/** One document, schema-checked; a session's or entry's file name must match its content. */
async function parseBlob(t: Treed, b: { file: string; oid: string }, data: Buffer): Promise<Stage<Parsed>> {
  const where = { ref: t.ref, object: b.oid, file: b.file };
  const dir = b.file.includes('/') ? b.file.slice(0, b.file.indexOf('/')) : '';
  const kind: DocKind = dir === '' ? 'task' : dir === SESSIONS_DIR ? 'session' : ENTRY_SCHEMA[dir as EntryKind];
  try {
    const doc = await readDoc<{ id: string; clock: number }>(kind, data.toString('utf8'), where);
    const name = b.file.slice(dir.length + 1);
    if (kind === 'task') return { kind: 'task', doc };
    if (kind === 'session') {
      if (name === `${doc.id}.yaml`) return { kind: 'session', doc };
      return invalidData(`${t.ref}:${b.file} holds session ${doc.id}`, { ...where, path: '/id' });
    }
    const named = parseEntryName(name);
    if (named && named.id === doc.id && named.clock === doc.clock) return { kind: 'entry', dir: dir as EntryKind, doc };
    return invalidData(`${t.ref}:${b.file} does not match its id/clock (${doc.id}@${doc.clock})`, {
      ...where,
      path: '/id',
    });
  } catch (e) {
    return e instanceof LazyError ? e : invalidData(String(e), where);
  }
}
