import { git } from '../../core/git.js';
import { ARCHIVE_NS, archiveMapRev, archiveRef } from '../../core/names.js';
import type { ObjectReader } from '../objects.js';
import { isTaskId } from '../../core/ids.js';

// The archive's map: each archive ref's tree holds one file, `tasks`, a line per archived task
// (`<id> <tip> <status>`, sorted by id). The status is the one the task had when it was archived, so a
// `list --status` that wants none of them skips folding them; the task's documents at its tip stay the truth.
// The map is read by name (`refs/lazy/archive/<shard>:tasks`) through cat-file: no ref listing needed.

export const MAP_FILE = 'tasks';
/** The id alphabet (lib/core/ids.ts): one shard per first character, so a few dozen refs at most. */
export const SHARDS = [...'0123456789abcdefghjkmnpqrstvwxyz'];

export interface Archived {
  id: string;
  tip: string;
  status: string;
}
export type ArchiveMap = Map<string, Archived>;

export const shardOf = (id: string) => id[0]!;

/**
 * A map's entries, and its lines that are not one (`bad`): an entry's id is a task id of the shard (its first
 * character), its tip an object id. Readers keep the good ones; a pull refuses a shard with any bad line.
 */
export function parseMapLines(text: string, shard?: string): { map: ArchiveMap; bad: string[] } {
  const map: ArchiveMap = new Map();
  const bad: string[] = [];
  for (const line of text.split('\n')) {
    if (!line) continue;
    const [id, tip, status, ...more] = line.split(' ');
    const ok = id && isTaskId(id) && (!shard || shardOf(id) === shard) && tip && /^[0-9a-f]{40,64}$/.test(tip);
    if (ok && !more.length) map.set(id, { id, tip, status: status ?? '' });
    else bad.push(line);
  }
  return { map, bad };
}

export const parseMap = (text: string, shard?: string): ArchiveMap => parseMapLines(text, shard).map;

export function serializeMap(map: ArchiveMap): string {
  const ids = [...map.keys()].sort();
  return ids.map((id) => `${id} ${map.get(id)!.tip} ${map.get(id)!.status}\n`).join('');
}

/** The archive refs' tips: shard → commit. */
export async function archiveTips(cwd: string): Promise<Map<string, string>> {
  const r = await git(['for-each-ref', '--format=%(objectname) %(refname)', ARCHIVE_NS], { cwd });
  const tips = new Map<string, string>();
  for (const line of r.stdout.split('\n')) {
    const sp = line.indexOf(' ');
    if (sp > 0) tips.set(line.slice(sp + 1 + ARCHIVE_NS.length), line.slice(0, sp));
  }
  return tips;
}

/** The map in one archive commit (or ref): empty when there is none. */
export async function readMapAt(objects: ObjectReader, commitOrRef: string, shard?: string): Promise<ArchiveMap> {
  return (await readMapLines(objects, commitOrRef, shard)).map;
}

/** The map in one archive commit with its malformed lines; a ref under refs/lazy/archive/ names its own shard. */
export async function readMapLines(
  objects: ObjectReader,
  commitOrRef: string,
  shard = commitOrRef.startsWith(ARCHIVE_NS) ? commitOrRef.slice(ARCHIVE_NS.length) : undefined,
): Promise<{ map: ArchiveMap; bad: string[] }> {
  const blob = await objects.read(`${commitOrRef}:${MAP_FILE}`);
  return blob && blob.type === 'blob' ? parseMapLines(blob.data.toString('utf8'), shard) : { map: new Map(), bad: [] };
}

/** Where an archived task's history ends (null: not archived), reading only its shard's map. */
export async function archivedOne(objects: ObjectReader, id: string): Promise<Archived | null> {
  if (!id) return null;
  return (await readMapAt(objects, archiveRef(shardOf(id)))).get(id) ?? null;
}

/** Every archived task, from every shard's map in one round trip. */
export async function readAllArchived(objects: ObjectReader): Promise<ArchiveMap> {
  const blobs = await objects.readMany(SHARDS.map((s) => archiveMapRev(s, MAP_FILE)));
  const all: ArchiveMap = new Map();
  blobs.forEach((b, i) => {
    if (b?.type === 'blob') for (const [id, a] of parseMap(b.data.toString('utf8'), SHARDS[i])) all.set(id, a);
  });
  return all;
}

/** Archived ids that start with `prefix` (one shard's map, by one git call). */
export async function archivedByPrefix(cwd: string, prefix: string): Promise<string[]> {
  const r = await git(['cat-file', 'blob', archiveMapRev(shardOf(prefix), MAP_FILE)], { cwd, allowFail: true });
  if (r.code !== 0) return [];
  return [...parseMap(r.stdout, shardOf(prefix)).keys()].filter((id) => id.startsWith(prefix));
}
