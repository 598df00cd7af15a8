import { git } from '../core/git.js';
import type { Repo } from '../core/repo.js';
import type { Signature } from '../core/actor.js';
import type { Json } from '../model/docs.js';
import { CONFIG_FILE, CONFIG_REF } from '../store/layout.js';
import { parseCommit, parseTree, type ObjectReader } from '../store/objects.js';
import { readDoc, writeDoc } from '../store/validate.js';
import { ObjectWriter } from '../store/writer.js';
import { casRef } from '../store/refs.js';
import { merge3 } from './merge-docs.js';

// refs/lazy/config travels like a task: fast-forward when one side is ahead, otherwise
// a deterministic key-by-key three-way merge of config.yaml.

export type ConfigOutcome = 'absent' | 'unchanged' | 'new' | 'updated' | 'merged' | 'ahead' | 'rejected';

async function readConfigAt(objects: ObjectReader, commit: string, ref: string): Promise<Record<string, Json>> {
  const c = await objects.read(commit);
  const tree = c ? await objects.read(parseCommit(c.data).tree) : null;
  const entry = tree ? parseTree(tree.data).find((e) => e.name === CONFIG_FILE) : undefined;
  const blob = entry ? await objects.read(entry.oid) : null;
  if (!blob) throw new Error(`${ref} has no ${CONFIG_FILE}`);
  return readDoc<Record<string, Json>>('config', blob.data.toString('utf8'), { ref, object: blob.oid, file: CONFIG_FILE });
}

const flatten = (o: Record<string, Json>, prefix = ''): Record<string, Json> => Object.fromEntries(Object.entries(o).flatMap(([k, v]) =>
  v && typeof v === 'object' && !Array.isArray(v) ? Object.entries(flatten(v as Record<string, Json>, `${prefix}${k}.`)) : [[`${prefix}${k}`, v]]));

function unflatten(flat: Record<string, Json>): Record<string, Json> {
  const out: Record<string, any> = {};
  for (const [k, v] of Object.entries(flat)) {
    const parts = k.split('.');
    let cur = out;
    for (const p of parts.slice(0, -1)) cur = cur[p] ??= {};
    cur[parts.at(-1)!] = v;
  }
  return out;
}

export async function mergeConfig(repo: Repo, objects: ObjectReader, remote: string, theirs: string | null): Promise<ConfigOutcome> {
  const tracking = `${remote}:${CONFIG_REF}`;
  const ours = (await git(['rev-parse', '--verify', '--quiet', CONFIG_REF], { cwd: repo.cwd, allowFail: true })).stdout.trim() || null;
  if (!theirs) return 'absent';
  if (theirs === ours) return 'unchanged';
  try {
    const remoteDoc = await readConfigAt(objects, theirs, tracking);
    if (!ours) return (await casRef(repo.cwd, CONFIG_REF, theirs, null, 'lazy: pull config')) === 'ok' ? 'new' : 'rejected';
    const base = (await git(['merge-base', ours, theirs], { cwd: repo.cwd, allowFail: true })).stdout.trim() || null;
    if (base === theirs) return 'ahead';
    if (base === ours) return (await casRef(repo.cwd, CONFIG_REF, theirs, ours, 'lazy: pull config')) === 'ok' ? 'updated' : 'rejected';
    const localDoc = await readConfigAt(objects, ours, CONFIG_REF);
    const baseDoc = base ? await readConfigAt(objects, base, CONFIG_REF).catch(() => undefined) : undefined;
    const [x, y] = ours < theirs ? [localDoc, remoteDoc] : [remoteDoc, localDoc];
    const merged = unflatten(merge3(baseDoc ? flatten(baseDoc) : undefined, flatten(x), flatten(y), 'config').doc);
    const w = new ObjectWriter(repo.commonDir);
    const blob = await w.blob(writeDoc('config', merged, { ref: CONFIG_REF, file: CONFIG_FILE }));
    const tree = await w.tree([{ mode: '100644', path: CONFIG_FILE, oid: blob, type: 'blob' }]);
    const sig: Signature = { name: 'lazy', email: 'lazy@merge.invalid', timestamp: 0, timezoneOffset: 0 };
    const parents = [ours, theirs].sort();
    const commit = await w.commit({ tree, parents, message: 'lazy: merge config (system)\n\nLazy-Op: merge\n', author: sig, committer: sig });
    return (await casRef(repo.cwd, CONFIG_REF, commit, ours, 'lazy: merge config')) === 'ok' ? 'merged' : 'rejected';
  } catch {
    return 'rejected';
  }
}
