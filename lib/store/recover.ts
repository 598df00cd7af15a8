import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { git } from '../core/git.js';
import { isTaskId } from '../core/ids.js';
import { parseCommit } from './objects.js';
import type { TaskReader } from './read.js';
import { casRef } from './refs.js';
import { ZERO_OID } from './layout.js';
import { TASKS_NS } from '../core/names.js';

// Finding the last good tip of a lazy ref that was deleted or pointed at junk by hand
// (or by an agent). Two sources, best first: the ref's reflog (lazy writes refs with
// --create-reflog, and init sets core.logAllRefUpdates=always), then dangling commits
// that carry the task's trailer (a deleted ref loses its reflog with it). Restoring
// is a compare-and-swap from the value the doctor saw.

/** Values a ref held, newest first, read from its reflog file. */
export function reflogTips(commonDir: string, ref: string): string[] {
  let text = '';
  try {
    text = readFileSync(join(commonDir, 'logs', ref), 'utf8');
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const line of text.split('\n').reverse()) {
    const [, next] = line.split(' ', 2);
    for (const oid of [next, line.slice(0, 40)])
      if (oid && /^[0-9a-f]{40}$/.test(oid) && oid !== ZERO_OID && !out.includes(oid)) out.push(oid);
  }
  return out;
}

/** Task ids whose reflog survives without the ref (a ref file removed by hand). */
export function reflogTaskIds(commonDir: string): string[] {
  try {
    return readdirSync(join(commonDir, 'logs', TASKS_NS)).filter(isTaskId);
  } catch {
    return [];
  }
}

/** Dangling commits that name a task in their trailer, newest Lamport clock first, by task id. */
export async function danglingTaskCommits(cwd: string, reader: TaskReader): Promise<Map<string, string[]>> {
  const r = await git(['fsck', '--connectivity-only', '--no-progress', '--dangling'], { cwd, allowFail: true });
  const oids = [...r.stdout.matchAll(/^dangling commit ([0-9a-f]{40})$/gm)].map((m) => m[1]!);
  const found = new Map<string, { oid: string; clock: number }[]>();
  const objs = await reader.objects.readMany(oids);
  for (const o of objs) {
    if (!o || o.type !== 'commit') continue;
    const msg = parseCommit(o.data).message;
    const id = /^Lazy-Task: ([0-9a-z]{8})$/m.exec(msg)?.[1];
    if (!id) continue;
    const clock = Number(/^Lazy-Clock: (\d+)$/m.exec(msg)?.[1] ?? 0);
    found.set(id, [...(found.get(id) ?? []), { oid: o.oid, clock }]);
  }
  return new Map([...found].map(([id, list]) => [id, list.sort((a, b) => b.clock - a.clock).map((c) => c.oid)]));
}

/** The first candidate that reads as a valid commit of this task. */
export async function firstValidTip(reader: TaskReader, id: string, candidates: string[]): Promise<string | null> {
  for (const tip of candidates) {
    const r = (await reader.readMany([{ id, tip }])).get(id);
    if (r && !(r instanceof Error)) return tip;
  }
  return null;
}

/** Puts a ref back at a good tip, only if it still holds what was seen (null: still missing). */
export async function restoreRef(cwd: string, ref: string, good: string, seen: string | null): Promise<boolean> {
  return (await casRef(cwd, ref, good, seen, `lazy doctor: restore ${ref}`)) === 'ok';
}
