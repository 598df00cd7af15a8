import type { Repo } from '../core/repo.js';
import type { Signature } from '../core/actor.js';
import type { TaskDocs, SessionDoc } from '../model/docs.js';
import { foldTask, type TaskView } from '../model/fold.js';
import type { TaskRead, TaskReader } from '../store/read.js';
import { ObjectWriter, type Entries } from '../store/writer.js';
import { writeDoc } from '../store/validate.js';
import { parseCommit } from '../store/objects.js';
import { SESSIONS_DIR } from '../store/layout.js';
import type { TreePlan } from './merge-docs.js';
import { taskRef } from '../core/names.js';
import { summaryLines } from '../store/listing/summary.js';

// The merge commit: both tips as parents (sorted), a fixed author, the later parent's
// date, and a message derived from the content only, so every clone that merges the
// same pair writes the very same commit and merges stop bouncing between clones.

const MERGER = { name: 'lazy', email: 'lazy@merge.invalid' };

export async function writeMergeCommit(
  repo: Repo,
  reader: TaskReader,
  id: string,
  a: TaskRead,
  b: TaskRead,
  plan: TreePlan,
): Promise<{ tip: string; view: TaskView }> {
  const w = new ObjectWriter(repo.commonDir);
  const ref = taskRef(id);
  const files = new Map([...plan.files].map(([d, m]) => [d, new Map(m)]));
  for (const r of plan.rewrite) {
    const oid = await w.blob(writeDoc(r.kind, r.doc, { ref, file: r.dir ? `${r.dir}/${r.name}` : r.name }));
    const dir = files.get(r.dir) ?? new Map<string, string>();
    dir.set(r.name, oid);
    files.set(r.dir, dir);
  }
  const root: Entries = new Map();
  for (const [dir, entries] of files) {
    const blobs: Entries = new Map([...entries].map(([name, oid]) => [name, { blob: oid }]));
    if (dir === '') for (const [name, b] of blobs) root.set(name, b);
    else root.set(dir, blobs);
  }
  const [ca, cb] = await Promise.all([reader.objects.read(a.docs.tip), reader.objects.read(b.docs.tip)]);
  const when = Math.max(
    commitTime(ca ? parseCommit(ca.data).committer : ''),
    commitTime(cb ? parseCommit(cb.data).committer : ''),
  );
  const sig: Signature = { ...MERGER, timestamp: when, timezoneOffset: 0 };
  const parents = [a.docs.tip, b.docs.tip].sort();
  const merged: TaskDocs = {
    id,
    tip: '',
    task: plan.task,
    sessions: mergedSessions(a, b, plan),
    turns: union(a.docs.turns, b.docs.turns),
    changelog: union(a.docs.changelog, b.docs.changelog),
    violations: union(a.docs.violations, b.docs.violations),
    decisions: union(a.docs.decisions, b.docs.decisions),
  };
  const view = foldTask(merged);
  const aside = view.concurrent_changes.map(
    (c) => `set aside: ${c.from ?? '∅'} -> ${c.status} by ${c.actor} (${c.trigger}, clock ${c.clock})`,
  );
  const message = [
    `lazy: merge ${id} (system)`,
    '',
    `Merged ${parents[0]!.slice(0, 10)} and ${parents[1]!.slice(0, 10)}: the union of both histories.`,
    ...plan.conflicts.map((c) => `field conflict: ${c}`),
    ...aside,
    '',
    `Lazy-Task: ${id}`,
    'Lazy-Op: merge',
    'Lazy-Actor: system',
    `Lazy-Status: ${view.status}`,
    // Derived from the merged documents alone, like the rest: every clone writes the same summary.
    ...summaryLines(view),
    '',
  ].join('\n');
  const tip = await w.writeTreeCommit(root, { parents, message, author: sig, committer: sig });
  return { tip, view: { ...view, tip } };
}

const union = <T extends { id: string; clock: number }>(x: T[], y: T[]): T[] => {
  const m = new Map<string, T>();
  for (const e of [...x, ...y]) m.set(`${e.clock}-${e.id}`, e);
  return [...m.values()];
};

function mergedSessions(a: TaskRead, b: TaskRead, plan: TreePlan): SessionDoc[] {
  const out = new Map<string, SessionDoc>();
  for (const s of [...a.docs.sessions, ...b.docs.sessions]) out.set(s.id, s);
  for (const r of plan.rewrite) if (r.dir === SESSIONS_DIR) out.set((r.doc as SessionDoc).id, r.doc as SessionDoc);
  return [...out.values()];
}

function commitTime(signatureLine: string): number {
  const m = / (\d+) [+-]\d{4}$/.exec(signatureLine);
  return m ? Number(m[1]) : 0;
}
