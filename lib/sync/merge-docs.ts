import type { TaskDoc, SessionDoc } from '../model/docs.js';
import type { Json } from '../core/json.js';
import type { TaskRead } from '../store/read.js';
import type { TreeEntry } from '../store/objects.js';
import { SESSIONS_DIR, ENTRY_DIRS, TASK_FILE } from '../store/layout.js';

// Merging a task whose ref moved on two clones. Append-only entries merge as the union
// of their files; the same path with different contents is corruption. The task and
// session records merge field by field against the merge base; a field both sides
// changed goes to the side with the higher Lamport clock, ties to the higher tip oid.
// Invariant: the result depends only on the two tips and their base, never on which
// clone computes it, so every clone writes the same merge commit.

export type TreePlan = {
  /** Entries and unchanged documents, by directory ('' = root): name → blob oid. */
  files: Map<string, Map<string, string>>;
  /** Documents the merge rewrote, to serialise: [dir, name, kind, doc]. */
  rewrite: { dir: string; name: string; kind: 'task' | 'session'; doc: TaskDoc | SessionDoc }[];
  conflicts: string[];
  /** The merged task record (whether or not it had to be rewritten). */
  task: TaskDoc;
};

export class CorruptMerge extends Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(message);
  }
}

const eq = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

function mergeList(base: Json[] | undefined, a: Json[], b: Json[]): Json[] {
  const key = (v: Json) => JSON.stringify(v);
  const inBase = new Set((base ?? []).map(key));
  const removed = new Set([...inBase].filter((k) => !a.some((v) => key(v) === k) || !b.some((v) => key(v) === k)));
  const out: Json[] = [];
  const seen = new Set<string>();
  for (const v of [...(base ?? []), ...a, ...b]) {
    const k = key(v);
    if (seen.has(k) || removed.has(k)) continue;
    seen.add(k);
    out.push(v);
  }
  return out;
}

/** Three-way merge of one record; `first` wins fields both sides changed. */
export function merge3<T extends Record<string, any>>(
  base: T | undefined,
  first: T,
  second: T,
  label: string,
): { doc: T; conflicts: string[] } {
  const out: Record<string, any> = {};
  const conflicts: string[] = [];
  for (const k of new Set([...Object.keys(first), ...Object.keys(second)])) {
    const a = first[k];
    const b = second[k];
    const o = base?.[k];
    if (eq(a, b) || eq(b, o)) out[k] = a;
    else if (eq(a, o)) out[k] = b;
    else if (Array.isArray(a) && Array.isArray(b) && (o === undefined || Array.isArray(o))) out[k] = mergeList(o, a, b);
    else if (k === 'clock') out[k] = Math.max(Number(a), Number(b));
    else {
      out[k] = a;
      conflicts.push(`${label}.${k}: kept ${JSON.stringify(a)}, set aside ${JSON.stringify(b)}`);
    }
  }
  if ('clock' in out) out.clock = Math.max(Number(first.clock), Number(second.clock));
  return { doc: out as T, conflicts };
}

const filesOf = (r: TaskRead, dir: string): TreeEntry[] =>
  dir === '' ? r.snap.root.filter((e) => e.mode !== '40000') : (r.snap.dirs.get(dir) ?? []);

/** Orders two sides canonically: higher clock first, ties by the higher tip oid. */
function order<T extends { clock: number }>(x: { doc: T; tip: string }, y: { doc: T; tip: string }) {
  return x.doc.clock > y.doc.clock || (x.doc.clock === y.doc.clock && x.tip > y.tip) ? [x, y] : [y, x];
}

export function planMerge(base: TaskRead | null, a: TaskRead, b: TaskRead): TreePlan {
  const files = new Map<string, Map<string, string>>();
  const rewrite: TreePlan['rewrite'] = [];
  const conflicts: string[] = [];

  for (const dir of ENTRY_DIRS) {
    const union = new Map<string, string>();
    for (const side of [a, b]) {
      for (const e of filesOf(side, dir)) {
        const prev = union.get(e.name);
        if (prev && prev !== e.oid)
          throw new CorruptMerge(`${dir}/${e.name}`, `${dir}/${e.name} has different contents on the two sides`);
        union.set(e.name, e.oid);
      }
    }
    if (union.size) files.set(dir, union);
  }

  // task.yaml
  const oidOf = (r: TaskRead, dir: string, name: string) => filesOf(r, dir).find((e) => e.name === name)?.oid;
  const [ta, tb] = order({ doc: a.docs.task, tip: a.docs.tip }, { doc: b.docs.task, tip: b.docs.tip });
  const task = merge3(base?.docs.task, ta!.doc, tb!.doc, 'task');
  conflicts.push(...task.conflicts);
  const reuseTask = [a, b].find((r) => eq(r.docs.task, task.doc));
  files.set('', new Map(reuseTask ? [[TASK_FILE, oidOf(reuseTask, '', TASK_FILE)!]] : []));
  if (!reuseTask) rewrite.push({ dir: '', name: TASK_FILE, kind: 'task', doc: task.doc });

  // sessions/<id>.yaml
  const sessions = new Map<string, string>();
  const ids = new Set([...a.docs.sessions, ...b.docs.sessions].map((s) => s.id));
  for (const id of [...ids].sort()) {
    const sa = a.docs.sessions.find((s) => s.id === id);
    const sb = b.docs.sessions.find((s) => s.id === id);
    const name = `${id}.yaml`;
    if (!sa || !sb || eq(sa, sb)) {
      const from = sa ? a : b;
      sessions.set(name, oidOf(from, SESSIONS_DIR, name)!);
      continue;
    }
    const [x, y] = order({ doc: sa, tip: a.docs.tip }, { doc: sb, tip: b.docs.tip });
    const m = merge3(
      base?.docs.sessions.find((s) => s.id === id),
      x!.doc,
      y!.doc,
      `session ${id}`,
    );
    conflicts.push(...m.conflicts);
    rewrite.push({ dir: SESSIONS_DIR, name, kind: 'session', doc: m.doc });
  }
  if (sessions.size || rewrite.some((r) => r.dir === SESSIONS_DIR)) files.set(SESSIONS_DIR, sessions);
  return { files, rewrite, conflicts, task: task.doc };
}
