import { invalidData, LazyError, notFound } from '../core/errors.js';
import type { EntryKind, SessionDoc, TaskDoc, TaskDocs } from '../model/docs.js';
import { replayStatus } from '../model/fold.js';
import { ObjectReader, parseCommit, parseTree, type TreeEntry } from './objects.js';
import { ENTRY_DIRS, parseEntryName, SESSIONS_DIR, TASK_FILE, taskRef } from './layout.js';
import { ENTRY_SCHEMA, readDoc, type DocKind } from './validate.js';

// Reads task trees in rounds (commits, root trees, subtrees, blobs), many tasks per
// round, through one cat-file process. Every document is schema-checked; a bad task
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

interface Work {
  id: string;
  ref: string;
  tip?: string;
  tree?: string;
  snap?: TreeSnapshot;
  error?: LazyError;
}

const fail = (w: Work, message: string, details: Record<string, unknown>) => {
  w.error ??= invalidData(`${w.ref}: ${message}`, { ref: w.ref, ...details });
};

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
    const work: Work[] = list.map((t) => ({ id: t.id, ref: t.ref ?? taskRef(t.id), tip: t.tip }));

    // Round 1: commits.
    const commits = await this.objects.readMany(work.map((w) => w.tip!));
    work.forEach((w, i) => {
      const c = commits[i];
      if (!c) {
        w.error = notFound(`no task '${w.id}'`, { id: w.id });
        return;
      }
      if (c.type !== 'commit' || c.oversize)
        return fail(w, c.oversize ? `its commit is ${c.oversize} bytes` : `points at a ${c.type}, not a commit`, {
          object: c.oid,
        });
      w.tip = c.oid;
      w.tree = parseCommit(c.data).tree;
    });

    // Round 2: root trees.
    const live = () => work.filter((w) => !w.error);
    let batch = live();
    const roots = await this.objects.readMany(batch.map((w) => w.tree!));
    batch.forEach((w, i) => {
      const t = roots[i];
      if (!t || t.type !== 'tree' || t.oversize)
        return fail(w, t?.oversize ? `its tree is ${t.oversize} bytes` : 'commit tree is missing', { object: w.tree });
      try {
        const root = parseTree(t.data);
        w.snap = { tree: w.tree!, root, dirs: new Map() };
        for (const e of root) {
          if (e.name === TASK_FILE ? e.mode !== '100644' : !(DIR_NAMES.has(e.name) && e.mode === '40000')) {
            return fail(w, `unexpected entry '${e.name}' in the task tree`, {
              object: w.tree,
              file: e.name,
              path: '/',
            });
          }
        }
        if (!root.some((e) => e.name === TASK_FILE))
          fail(w, `has no ${TASK_FILE}`, { object: w.tree, file: TASK_FILE, path: '/' });
      } catch (e) {
        fail(w, (e as Error).message, { object: w.tree });
      }
    });

    // Round 3: subtrees.
    batch = live();
    const subs = batch.flatMap((w) => w.snap!.root.filter((e) => e.mode === '40000').map((e) => ({ w, e })));
    const subObjs = await this.objects.readMany(subs.map((s) => s.e.oid));
    subs.forEach(({ w, e }, i) => {
      const o = subObjs[i];
      if (w.error) return;
      if (!o || o.type !== 'tree' || o.oversize)
        return fail(w, o?.oversize ? `${e.name}/ is ${o.oversize} bytes` : `${e.name}/ is missing`, {
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
            return fail(w, `unexpected entry '${e.name}/${x.name}'`, {
              object: e.oid,
              file: `${e.name}/${x.name}`,
              path: '/',
            });
        }
        w.snap!.dirs.set(e.name, entries);
      } catch (err) {
        fail(w, (err as Error).message, { object: e.oid, file: e.name });
      }
    });

    // Round 4: blobs.
    batch = live();
    const blobs = batch.flatMap((w) => [
      { w, file: TASK_FILE, oid: w.snap!.root.find((e) => e.name === TASK_FILE)!.oid },
      ...[...w.snap!.dirs].flatMap(([dir, entries]) =>
        entries.map((x) => ({ w, file: `${dir}/${x.name}`, oid: x.oid })),
      ),
    ]);
    const blobObjs = await this.objects.readMany(blobs.map((b) => b.oid));
    type Collected = Omit<TaskDocs, 'id' | 'tip' | 'task'> & { task?: TaskDoc };
    const docsOf = new Map<Work, Collected>();
    await Promise.all(
      blobs.map(async (b, i) => {
        if (b.w.error) return;
        const o = blobObjs[i];
        if (!o || o.type !== 'blob') return fail(b.w, `${b.file} is missing`, { object: b.oid, file: b.file });
        if (o.oversize)
          return fail(b.w, `${b.file} is ${o.oversize} bytes, larger than any document lazy reads`, {
            object: b.oid,
            file: b.file,
            path: '/',
          });
        const where = { ref: b.w.ref, object: b.oid, file: b.file };
        let d = docsOf.get(b.w);
        if (!d) docsOf.set(b.w, (d = { sessions: [], turns: [], changelog: [], violations: [], decisions: [] }));
        const dir = b.file.includes('/') ? b.file.slice(0, b.file.indexOf('/')) : '';
        const kind: DocKind = dir === '' ? 'task' : dir === SESSIONS_DIR ? 'session' : ENTRY_SCHEMA[dir as EntryKind];
        try {
          const doc = await readDoc<{ id: string; clock: number }>(kind, o.data.toString('utf8'), where);
          const name = b.file.slice(dir.length + 1);
          const named = parseEntryName(name);
          if (kind === 'task') d.task = doc as unknown as TaskDoc;
          else if (kind === 'session') {
            if (name !== `${doc.id}.yaml`)
              throw invalidData(`${b.w.ref}:${b.file} holds session ${doc.id}`, { ...where, path: '/id' });
            d.sessions.push(doc as unknown as SessionDoc);
          } else {
            if (!named || named.id !== doc.id || named.clock !== doc.clock) {
              throw invalidData(`${b.w.ref}:${b.file} does not match its id/clock (${doc.id}@${doc.clock})`, {
                ...where,
                path: '/id',
              });
            }
            (d[dir as EntryKind] as unknown[]).push(doc);
          }
        } catch (e) {
          b.w.error ??= e instanceof LazyError ? e : invalidData(String(e), where);
        }
      }),
    );

    const out = new Map<string, TaskRead | LazyError>();
    for (const w of work) {
      const d = docsOf.get(w);
      if (!w.error && d?.task) {
        if (d.task.id !== w.id) fail(w, `${TASK_FILE} holds task ${d.task.id}`, { file: TASK_FILE, path: '/id' });
        else if (replayStatus(d.changelog).status === null)
          fail(w, 'has no creation entry in changelog/', { file: 'changelog', path: '/' });
      }
      if (w.error) {
        out.set(w.id, w.error);
        continue;
      }
      out.set(w.id, {
        docs: { ...d!, id: w.id, tip: w.tip!, task: d!.task! },
        snap: w.snap!,
      });
    }
    return out;
  }
}
