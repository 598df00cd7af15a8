import { gitPerson, envActor, type Actor, type Signature } from '../core/actor.js';
import { thisHost } from '../core/proc.js';
import { cloneId } from '../core/place.js';
import { randomId } from '../core/ids.js';
import { contention, idExhausted, taskFull } from '../core/errors.js';
import type { Repo } from '../core/repo.js';
import type { EntryKind, TaskDoc } from '../model/docs.js';
import { foldTask, type TaskView } from '../model/fold.js';
import { Draft, creationDraft, type Ctx } from './draft.js';
import { TaskReader, type TaskRead, type TreeSnapshot } from './read.js';
import { ObjectWriter, type Entries } from './writer.js';
import { casRef } from './refs.js';
import { packWhenLoose } from './packed.js';
import { withLock } from '../core/lock.js';
import { ENTRY_DIRS, entryName, sessionName, SESSIONS_DIR, TASK_ENTRY_LIMIT, TASK_FILE } from './layout.js';
import { ENTRY_SCHEMA, writeDoc, type DocKind } from './validate.js';
import { now } from '../core/clock.js';
import { taskRef } from '../core/names.js';

// The write protocol. Under the task's lock: read the tip, plan the mutation against
// the folded state, write objects, then move the ref with compare-and-swap from the
// tip that was read. A lost race re-reads and re-plans; an update is never lost.

const MAX_ATTEMPTS = 20;

/** Operations that finish a turn or the task: they land on a task at its entry limit. */
const FINISHING = new Set([
  'turn',
  'stop',
  'accept',
  'accept-abort',
  'recover-accept',
  'submit',
  'submission',
  'decide',
  'close',
  'reject',
  'pair-end',
]);

/** Refuses a growing write that would take a task past TASK_ENTRY_LIMIT (exit 4; nothing is written). */
function checkEntryLimit(op: string, read: TaskRead, draft: Draft): void {
  if (FINISHING.has(op)) return;
  const held = ENTRY_DIRS.reduce((n, d) => n + (read.snap.dirs.get(d)?.length ?? 0), 0);
  const after = held + draft.turns.length + draft.changes.length + draft.violations.length + draft.decisions.length;
  if (after <= TASK_ENTRY_LIMIT) return;
  const status = draft.view.status;
  throw taskFull(
    `task ${draft.docs.id} holds ${held} entries; one task holds at most ${TASK_ENTRY_LIMIT}, ` +
      `so it takes no more comments or turns. Accept, close or reject it, and continue in a new task`,
    {
      action: op,
      status,
      available_actions: draft.view.available_actions.filter((a) => FINISHING.has(a)),
      entries: held,
      limit: TASK_ENTRY_LIMIT,
    },
  );
}

export type Planner = (d: Draft) => void | Promise<void>;

export interface MutateOptions {
  actor?: Actor;
  allowEmpty?: boolean;
}

export interface Committed {
  view: TaskView;
  tip: string;
  draft: Draft;
}

export class Store {
  private reader_: TaskReader | undefined;
  private writer_: ObjectWriter | undefined;
  private person_: Promise<Signature> | undefined;
  readonly actor: Actor;

  constructor(
    readonly repo: Repo,
    actor?: Actor,
  ) {
    this.actor = actor ?? envActor();
  }

  get reader(): TaskReader {
    return (this.reader_ ??= new TaskReader(this.repo.cwd));
  }
  private get writer(): ObjectWriter {
    return (this.writer_ ??= new ObjectWriter(this.repo.commonDir));
  }
  person(): Promise<Signature> {
    return (this.person_ ??= gitPerson(this.repo.cwd));
  }

  close(): void {
    this.reader_?.close();
  }

  async read(id: string): Promise<TaskRead> {
    const read = await this.reader.readOne(id);
    this.last = read;
    return read;
  }

  /** The task's last read, kept for the mutation that usually follows it (the pre-lock check of allowedTaskArg). */
  private last: TaskRead | undefined;

  /**
   * A mutation's first read, under the lock: the read this command made before taking it when the task has not
   * moved since (one cat-file round instead of reading every document again), else a new one. A stale read could
   * only lose the compare-and-swap, which reads afresh.
   */
  private async firstRead(id: string): Promise<TaskRead> {
    const last = this.last;
    this.last = undefined;
    if (last?.docs.task.id !== id) return this.read(id);
    const [tip] = await this.reader.objects.resolveMany([taskRef(id)]);
    return tip === last.docs.tip ? last : this.read(id);
  }

  async view(id: string): Promise<TaskView> {
    return foldTask((await this.read(id)).docs);
  }

  async ctx(actor?: Actor): Promise<{ ctx: Ctx; sig: Signature }> {
    const sig = await this.person();
    const at = new Date(now());
    return {
      ctx: {
        actor: actor ?? this.actor,
        person: { name: sig.name, email: sig.email },
        host: thisHost(),
        clone: cloneId(this.repo.lazyDir),
        now: at.toISOString(),
      },
      sig: { ...sig, timestamp: Math.floor(at.getTime() / 1000) },
    };
  }

  /** Creates a task: one commit with task.yaml and its backlog entry, on a create-only ref. */
  async create(
    fields: Omit<TaskDoc, 'id' | 'clock' | 'created_at' | 'created_by'>,
    plan?: Planner,
  ): Promise<Committed> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const id = randomId();
      const { ctx, sig } = await this.ctx();
      const draft = creationDraft(id, fields, ctx);
      if (plan) await plan(draft);
      const { tip, after } = await this.writeCommit(draft, undefined, sig, true);
      if ((await casRef(this.repo.cwd, taskRef(id), tip, null, `lazy: create ${id}`)) === 'ok') {
        await packWhenLoose(this.repo); // a create adds a loose ref: pack them once they are many
        return { view: { ...after, tip }, tip, draft };
      }
      // Id collision with an existing task: draw a new id.
    }
    throw idExhausted('could not allocate a unique task id');
  }

  /** Applies one mutation to a task under its lock; re-plans on a lost compare-and-swap. */
  mutate(id: string, op: string, plan: Planner, opts: MutateOptions = {}): Promise<Committed> {
    return withLock(this.repo.lazyDir, id, () => this.mutateUnlocked(id, op, plan, opts));
  }

  /** The same protocol without the lock; the compare-and-swap alone keeps it correct. */
  async mutateUnlocked(id: string, op: string, plan: Planner, opts: MutateOptions = {}): Promise<Committed> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const [read, { ctx, sig }] = await Promise.all([
        attempt ? this.read(id) : this.firstRead(id),
        this.ctx(opts.actor),
      ]);
      const view = foldTask(read.docs);
      const draft = new Draft(read.docs, view, ctx, op);
      await plan(draft);
      if (draft.empty && !opts.allowEmpty) return { view, tip: read.docs.tip, draft };
      checkEntryLimit(op, read, draft);
      const { tip, after } = await this.writeCommit(draft, read, sig, false);
      // An archived task comes back live: its ref is created at the new commit, whose parent is the archived tip.
      const old = read.archived ? null : read.docs.tip;
      if ((await casRef(this.repo.cwd, taskRef(id), tip, old, `lazy: ${op} ${id}`)) === 'ok') {
        return { view: { ...after, tip }, tip, draft };
      }
    }
    throw contention(`task ${id} kept changing under this write; try again`, { id });
  }

  /**
   * Objects first: new blobs, then the trees that hold them, then the commit, whose summary trailers are the task as
   * the draft leaves it (`after`, folded once, which the caller returns).
   */
  private async writeCommit(
    draft: Draft,
    read: TaskRead | undefined,
    sig: Signature,
    creating: boolean,
  ): Promise<{ tip: string; after: TaskView }> {
    const ref = taskRef(draft.docs.id);
    const w = this.writer;
    const blob = (kind: DocKind, file: string, doc: object) => w.blob(writeDoc(kind, doc, { ref, file }));
    const snap: TreeSnapshot = read?.snap ?? { tree: '', root: [], dirs: new Map() };

    const dirAdds = new Map<string, Promise<[string, string]>[]>();
    const add = (dir: string, name: string, oid: Promise<string>) => {
      const list = dirAdds.get(dir) ?? [];
      list.push(oid.then((o) => [name, o]));
      dirAdds.set(dir, list);
    };
    const entries: [EntryKind, { clock: number; id: string }[]][] = [
      ['turns', draft.turns],
      ['changelog', draft.changes],
      ['violations', draft.violations],
      ['decisions', draft.decisions],
    ];
    for (const [dir, list] of entries) {
      for (const e of list)
        add(dir, entryName(e.clock, e.id), blob(ENTRY_SCHEMA[dir], `${dir}/${entryName(e.clock, e.id)}`, e));
    }
    for (const s of draft.sessions.values())
      add(SESSIONS_DIR, sessionName(s.id), blob('session', `${SESSIONS_DIR}/${sessionName(s.id)}`, s));
    const taskDoc = draft.task ?? (creating ? draft.docs.task : undefined);
    const taskOid = taskDoc ? blob('task', TASK_FILE, taskDoc) : undefined;

    // Unchanged folders keep their tree; a changed one is its old files plus the new ones.
    const root: Entries = new Map(
      snap.root.map((e) => [e.name, e.mode === '40000' ? { tree: e.oid } : { blob: e.oid }]),
    );
    for (const [dir, adds] of dirAdds) {
      const merged: Entries = new Map((snap.dirs.get(dir) ?? []).map((e) => [e.name, { blob: e.oid }]));
      // sessions are replaced; entries are new names
      for (const [name, oid] of await Promise.all(adds)) merged.set(name, { blob: oid });
      root.set(dir, merged);
    }
    if (taskOid) root.set(TASK_FILE, { blob: await taskOid });
    const after = draft.preview();
    const tip = await w.writeTreeCommit(root, {
      parents: read ? [read.docs.tip] : [],
      message: draft.commitMessage(after),
      author: sig,
    });
    return { tip, after };
  }
}
