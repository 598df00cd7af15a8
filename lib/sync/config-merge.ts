import { git } from '../core/git.js';
import { LazyError } from '../core/errors.js';
import type { Repo } from '../core/repo.js';
import type { Signature } from '../core/actor.js';
import type { Json } from '../core/json.js';
import type { ObjectReader } from '../store/objects.js';
import { casRef } from '../store/refs.js';
import { withLock } from '../core/lock.js';
import { readTrust, record } from '../store/trust.js';
import { applySafety, union } from '../store/safety.js';
import { commitConfig, readConfigAt, type Config } from '../store/config/index.js';
import { merge3 } from './merge-docs.js';
import { CONFIG_REF, remoteRefLabel } from '../core/names.js';

// refs/lazy/config travels like a task: fast-forward when one side is ahead, otherwise
// a deterministic key-by-key three-way merge of config.yaml. A refusal says why.

export type ConfigOutcome = 'absent' | 'unchanged' | 'new' | 'updated' | 'merged' | 'ahead' | 'rejected';
/** held: safety settings of the new shared config this clone does not obey yet (see lazy config list). */
export interface ConfigResult {
  outcome: ConfigOutcome;
  reason?: string;
  details?: Record<string, unknown>;
  held?: string[];
}

// Keys are whole paths, never dotted strings: an agent name may itself hold a dot.
const flatten = (o: Record<string, Json>, prefix: string[] = []): Record<string, Json> =>
  Object.fromEntries(
    Object.entries(o).flatMap(([k, v]) =>
      v && typeof v === 'object' && !Array.isArray(v)
        ? Object.entries(flatten(v as Record<string, Json>, [...prefix, k]))
        : [[JSON.stringify([...prefix, k]), v]],
    ),
  );

function unflatten(flat: Record<string, Json>): Record<string, Json> {
  const out: Record<string, any> = {};
  for (const [k, v] of Object.entries(flat)) {
    const parts = JSON.parse(k) as string[];
    let cur = out;
    for (const p of parts.slice(0, -1)) cur = cur[p] ??= {};
    cur[parts.at(-1)!] = v;
  }
  return out;
}

/** A tip that travels must hold settings: a missing object is refused like a damaged one. */
const readSettings = async (objects: ObjectReader, at: string, ref: string) =>
  (await readConfigAt(objects, at, { ref, required: true })).config as Record<string, Json>;

const raced = {
  outcome: 'rejected',
  reason: `${CONFIG_REF} changed during the pull; pull again to merge it`,
  details: { ref: CONFIG_REF },
} as const;

export async function mergeConfig(
  repo: Repo,
  objects: ObjectReader,
  remote: string,
  theirs: string | null,
): Promise<ConfigResult> {
  const tracking = remoteRefLabel(remote, CONFIG_REF);
  const ours =
    (await git(['rev-parse', '--verify', '--quiet', CONFIG_REF], { cwd: repo.cwd, allowFail: true })).stdout.trim() ||
    null;
  if (!theirs) return { outcome: 'absent' };
  if (theirs === ours) return { outcome: 'unchanged' };
  try {
    const remoteDoc = await readSettings(objects, theirs, tracking);
    const base = ours
      ? (await git(['merge-base', ours, theirs], { cwd: repo.cwd, allowFail: true })).stdout.trim() || null
      : null;
    if (ours && base === theirs) return { outcome: 'ahead' };
    // A fast-forward may move past a broken local config (it repairs it); a merge needs it whole.
    const ff = !ours || base === ours;
    const localDoc = ours
      ? await readSettings(objects, ours, CONFIG_REF).catch((e): Record<string, Json> => {
          if (ff) return {};
          throw e;
        })
      : {};
    let next = theirs;
    let result = remoteDoc;
    if (!ff) {
      const baseDoc = base ? await readSettings(objects, base, CONFIG_REF).catch(() => undefined) : undefined;
      const [x, y] = ours < theirs ? [localDoc, remoteDoc] : [remoteDoc, localDoc];
      result = unflatten(merge3(baseDoc ? flatten(baseDoc) : undefined, flatten(x), flatten(y), 'config').doc);
      next = await writeMerge(repo, ours, theirs, result);
    }
    // Before the ref moves: what this clone obeyed stays the baseline, and globs that
    // arrive are protected from now on, so a later pull cannot quietly drop them.
    // Under the config lock, as lazy config set writes, so neither loses the other's record.
    return await withLock(repo.lazyDir, 'config', async (): Promise<ConfigResult> => {
      record(repo, localDoc as Config, (s) => ({
        ...s,
        protected: union(s.protected, localDoc.protected as string[], result.protected as string[]),
      }));
      if ((await casRef(repo.cwd, CONFIG_REF, next, ours, 'lazy: pull config')) !== 'ok') return raced;
      const held = applySafety(result as Config, readTrust(repo).safety).held.map((h) => h.key);
      return { outcome: !ours ? 'new' : ff ? 'updated' : 'merged', ...(held.length ? { held } : {}) };
    });
  } catch (e) {
    return {
      outcome: 'rejected',
      reason: (e as Error).message,
      details: e instanceof LazyError ? e.details : { ref: tracking },
    };
  }
}

function writeMerge(repo: Repo, ours: string, theirs: string, merged: Record<string, Json>): Promise<string> {
  const sig: Signature = { name: 'lazy', email: 'lazy@merge.invalid', timestamp: 0, timezoneOffset: 0 };
  return commitConfig(repo, merged as Config, {
    parents: [ours, theirs].sort(),
    message: 'lazy: merge config (system)\n\nLazy-Op: merge\n',
    author: sig,
    committer: sig,
  });
}
