import { mkdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { env } from '../../core/env.js';
import { writeFileAtomic } from '../../core/fsutil.js';
import { usageError, invalidData, LazyError, EXIT, contention } from '../../core/errors.js';
import type { Signature } from '../../core/actor.js';
import type { Repo } from '../../core/repo.js';
import type { Json } from '../../core/json.js';
import { CONFIG_FILE } from '../layout.js';
import type { Config } from './doc.js';
import { casRef } from '../refs.js';
import { checkDoc, readDoc, writeDoc } from '../validate.js';
import { ObjectWriter, type CommitFields } from '../writer.js';
import type { ObjectReader } from '../objects.js';
import { parseCommit, parseTree } from '../objects.js';
import { withLock } from '../../core/lock.js';
import { isTrusted, readTrust, record, untrustedAgents } from '../trust.js';
import { applySafety, isSafetyKey, withKey, type HeldBack } from '../safety.js';
import { reflogTips } from '../recover.js';
import { CONFIG_REF } from '../../core/names.js';

// Settings come in layers, as git's do, each winning over the one before: the user's
// ($XDG_CONFIG_HOME/lazy/config.yaml), the shared ones in refs/lazy/config (validated,
// versioned, pushed with the tasks), this clone's (.git/lazy/config.yaml, never pushed),
// then the environment (ENV_KEYS).

export type { Config } from './doc.js';

const INT_KEYS = new Set([
  'watchdog_ms',
  'stop_grace_ms',
  'retry_base_ms',
  'retry_unreachable_max',
  'retry_transient_max',
  'crash_window_ms',
  'usage_limit_recheck_ms',
  'usage_limit_max_wait_ms',
  'work.lease_seconds',
  'archive.after_days',
  'budget.task_tokens',
  'budget.auto_resumes_per_day',
]);
/** Keys that take a decimal number (dollars). */
const NUM_KEYS = new Set(['budget.task_cost_usd']);
const LIST_KEYS = new Set(['protected']);
const BOOL_KEYS = new Set(['mcp', 'archive.on_push']);
const AGENT_FIELDS = new Set(['command', 'adapter', 'args', 'permission_mode', 'interactive', 'model']);
/** pricing.<model>.<kind>: US dollars per million tokens, a decimal. */
const PRICE_FIELDS = new Set(['input', 'output', 'cache_read', 'cache_write']);
/** Nested keys outside agents.<name>: each a command line or a setting of one feature. */
const NESTED_KEYS = new Set([
  'forge.pr_command',
  'work.lease_seconds',
  'archive.after_days',
  'archive.on_push',
  'budget.task_tokens',
  'budget.task_cost_usd',
  'budget.auto_resumes_per_day',
]);

export const localConfigPath = (repo: Repo) => join(repo.lazyDir, 'config.yaml');

/** The user's settings, for every repository: $XDG_CONFIG_HOME/lazy/config.yaml, else ~/.config/lazy/config.yaml. */
export function userConfigPath(): string {
  const e = env();
  return join(e.XDG_CONFIG_HOME || join(e.HOME || homedir(), '.config'), 'lazy', 'config.yaml');
}

/** The layers, lowest first: a later one wins. */
export const LAYERS = ['user', 'shared', 'local', 'env'] as const;
export type Layer = (typeof LAYERS)[number];

/** Environment variables that override a setting (the top layer); the other LAZY_* variables are not settings. */
export const ENV_KEYS: Record<string, string> = { LAZY_AGENT: 'agent' };

/** `merged` is what this clone obeys: local over the shared settings, less what is held back (`held`). */
export interface ConfigSnapshot {
  user: Config;
  shared: Config;
  local: Config;
  /** The settings the environment overrides (ENV_KEYS), as a layer. */
  env: Config;
  merged: Config;
  tip: string | null;
  held: HeldBack[];
  /** Why the shared settings were not used (refs/lazy/config unreadable): its last good version, or defaults, apply. */
  problem?: LazyError;
  /** A user file or an environment override that fails the schema: named, not obeyed; the other layers apply. */
  ignored: LazyError[];
}

/**
 * The one reader of shared settings: config.yaml in commit `at` (refs/lazy/config, one of its past commits for
 * doctor, or a tip a pull brought, which `ref` then names), schema-checked. A failure names the ref, the object
 * and the file. No such object reads as no settings (`tip` null), unless `required`: then it is refused too.
 */
export async function readConfigAt(
  objects: ObjectReader,
  at = CONFIG_REF,
  opts: { ref?: string; required?: boolean } = {},
): Promise<{ config: Config; tip: string | null }> {
  const ref = opts.ref ?? CONFIG_REF;
  const commit = await objects.read(at);
  if (!commit && !opts.required) return { config: {}, tip: null };
  if (!commit || commit.type !== 'commit')
    throw invalidData(`${ref} points at ${commit ? `a ${commit.type}` : 'a missing object'}, not a commit`, {
      ref,
      object: commit?.oid ?? at,
      path: '/',
    });
  const tree = await objects.read(parseCommit(commit.data).tree);
  const entry = tree?.type === 'tree' ? parseTree(tree.data).find((e) => e.name === CONFIG_FILE) : undefined;
  const blob = entry ? await objects.read(entry.oid) : null;
  if (!blob || blob.type !== 'blob')
    throw invalidData(`${ref} has no ${CONFIG_FILE}`, { ref, object: commit.oid, file: CONFIG_FILE, path: '/' });
  if (blob.oversize)
    throw invalidData(`${ref}:${CONFIG_FILE} is ${blob.oversize} bytes, larger than any document lazy reads`, {
      ref,
      object: blob.oid,
      file: CONFIG_FILE,
      path: '/',
    });
  const config = await readDoc<Config>('config', blob.data.toString('utf8'), {
    ref,
    object: blob.oid,
    file: CONFIG_FILE,
  });
  return { config, tip: commit.oid };
}

/** One commit of the shared settings: `doc` as its config.yaml. */
export async function commitConfig(repo: Repo, doc: Config, c: CommitFields): Promise<string> {
  const w = new ObjectWriter(repo.commonDir);
  const blob = await w.blob(writeDoc('config', doc, { ref: CONFIG_REF, file: CONFIG_FILE }));
  return w.writeTreeCommit(new Map([[CONFIG_FILE, { blob }]]), c);
}

/** A settings file (local or user); no file reads as no settings. */
async function readFileLayer(file: string, ref: string): Promise<Config> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return {};
  }
  return readDoc<Config>('config', text, { ref, file });
}

const readLocal = (repo: Repo) => readFileLayer(localConfigPath(repo), '(local)');

/** The environment's overrides, each checked like any settings document: a bad value is named, not obeyed. */
function readEnvLayer(ignored: LazyError[]): Config {
  let c: Config = {};
  for (const [name, key] of Object.entries(ENV_KEYS)) {
    const v = env()[name];
    if (!v) continue;
    try {
      const next = setPath(c, keyPath(key), coerce(key, v));
      checkDoc('config', next, { ref: '(environment)', file: name });
      c = next;
    } catch (e) {
      if (!(e instanceof LazyError)) throw e;
      ignored.push(e.reworded(`${name}: ${e.message}: ignored`));
    }
  }
  return c;
}

function merge(a: Config, b: Config): Config {
  const agents: NonNullable<Config['agents']> = { ...a.agents };
  for (const [k, v] of Object.entries(b.agents ?? {})) agents[k] = { ...agents[k], ...v };
  // A model's prices merge field by field, as an agent's settings do: a local output price keeps the shared input one.
  const pricing: NonNullable<Config['pricing']> = { ...a.pricing };
  for (const [k, v] of Object.entries(b.pricing ?? {})) pricing[k] = { ...pricing[k], ...v };
  return { ...a, ...b, ...(a.agents || b.agents ? { agents } : {}), ...(a.pricing || b.pricing ? { pricing } : {}) };
}

export async function loadConfig(repo: Repo, objects: ObjectReader): Promise<ConfigSnapshot> {
  // Damaged shared settings must not stop every command, nor switch protection off: the
  // last version that reads (from the reflog) applies, else the defaults.
  let problem: LazyError | undefined;
  const sharedRead = readConfigAt(objects).catch(async (e: unknown) => {
    if (!(e instanceof LazyError) || e.exitCode !== EXIT.invalidData) throw e;
    for (const oid of reflogTips(repo.commonDir, CONFIG_REF)) {
      const last = await readConfigAt(objects, oid).catch(() => null);
      if (last) {
        problem = e.reworded(`${e.message}: using its last good version ${oid.slice(0, 10)}`);
        return { config: last.config, tip: null };
      }
    }
    problem = e.reworded(`${e.message}: using the defaults and local settings`);
    return { config: {} as Config, tip: null };
  });
  const ignored: LazyError[] = [];
  const userRead = readFileLayer(userConfigPath(), '(user)').catch((e: unknown) => {
    if (!(e instanceof LazyError)) throw e;
    ignored.push(e.reworded(`${e.message}: the user settings are ignored until it is fixed`));
    return {} as Config;
  });
  const [{ config: shared, tip }, local, user] = await Promise.all([sharedRead, readLocal(repo), userRead]);
  const envLayer = readEnvLayer(ignored);
  // Where worktrees go is this machine's business: a shared value is ignored.
  const { worktree_dir: _ignored, ...sharedRest } = shared;
  const t = tip ? readTrust(repo) : {};
  const { effective, held } = applySafety(sharedRest, t.safety);
  const merged = [effective, local, envLayer].reduce(merge, user);
  const untrusted = untrustedAgents(repo, shared, local, t);
  const prHeld = !!shared.forge?.pr_command && !local.forge?.pr_command && !isTrusted(repo, shared, t);
  return {
    user,
    shared,
    local,
    env: envLayer,
    merged: {
      ...merged,
      ...(untrusted.length ? { untrusted } : {}),
      ...(prHeld ? { untrusted_pr_command: true } : {}),
    },
    tip,
    held,
    ...(problem ? { problem } : {}),
    ignored,
  };
}

/** Parses `agents.<name>.<field>` and top-level keys into a path, refusing unknown ones. */
export function keyPath(key: string): string[] {
  const parts = key.split('.');
  if (
    parts.length === 1 &&
    (INT_KEYS.has(key) || LIST_KEYS.has(key) || BOOL_KEYS.has(key) || key === 'agent' || key === 'worktree_dir')
  )
    return parts;
  if (NESTED_KEYS.has(key)) return parts;
  // An agent name may hold dots (the schema allows them): agents.<name>.<field> splits at the first and last dot.
  const name = parts.slice(1, -1).join('.');
  if (parts.length >= 3 && parts[0] === 'agents' && /^[A-Za-z0-9_.-]+$/.test(name) && AGENT_FIELDS.has(parts.at(-1)!))
    return ['agents', name, parts.at(-1)!];
  // A model name holds dots too (claude-sonnet-4.5): pricing.<model>.<kind> splits the same way.
  if (
    parts.length >= 3 &&
    parts[0] === 'pricing' &&
    /^[A-Za-z0-9_.:/@-]+$/.test(name) &&
    PRICE_FIELDS.has(parts.at(-1)!)
  )
    return ['pricing', name, parts.at(-1)!];
  throw usageError(`unknown setting '${key}' (see lazy config --help for the keys)`);
}

function coerce(key: string, value: string): Json {
  if (key.startsWith('pricing.')) {
    if (!/^\d+(\.\d+)?$/.test(value.trim()))
      throw usageError(`${key} takes US dollars per million tokens (got '${value}')`);
    return Number(value.trim());
  }
  if (INT_KEYS.has(key)) {
    if (!/^\d+$/.test(value.trim())) throw usageError(`${key} takes a whole number (got '${value}')`);
    return Number(value.trim());
  }
  if (NUM_KEYS.has(key)) {
    if (!/^\d+(\.\d+)?$/.test(value.trim())) throw usageError(`${key} takes a number (got '${value}')`);
    return Number(value.trim());
  }
  if (BOOL_KEYS.has(key)) {
    if (!/^(true|false)$/.test(value.trim())) throw usageError(`${key} takes true or false (got '${value}')`);
    return value.trim() === 'true';
  }
  if (LIST_KEYS.has(key))
    return value
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  return value;
}

export function getPath(c: Config, path: string[]): Json | undefined {
  let cur: unknown = c;
  for (const p of path) cur = cur && typeof cur === 'object' ? (cur as Record<string, unknown>)[p] : undefined;
  return cur as Json | undefined;
}

function setPath(c: Config, path: string[], value: Json | undefined): Config {
  const out = structuredClone(c) as Record<string, any>;
  let cur = out;
  for (const p of path.slice(0, -1)) cur = cur[p] ??= {};
  if (value === undefined) delete cur[path.at(-1)!];
  else cur[path.at(-1)!] = value;
  for (const k of ['agents', 'pricing'])
    if (path[0] === k && value === undefined && Object.keys(out[k]?.[path[1]!] ?? {}).length === 0)
      delete out[k][path[1]!];
  for (const k of ['forge', 'work', 'budget', 'pricing'])
    if (path[0] === k && value === undefined && Object.keys(out[k] ?? {}).length === 0) delete out[k];
  return out as Config;
}

/** Sets (or with value undefined, unsets) one key in a settings file. */
async function writeFileLayer(file: string, ref: string, key: string, value: string | undefined): Promise<Config> {
  const next = setPath(
    await readFileLayer(file, ref),
    keyPath(key),
    value === undefined ? undefined : coerce(key, value),
  );
  mkdirSync(dirname(file), { recursive: true });
  await writeFileAtomic(file, writeDoc('config', next, { ref, file }));
  return next;
}

/** The user's settings need no repository, as git config --global does not. */
export const writeUserConfig = (key: string, value: string | undefined) =>
  writeFileLayer(userConfigPath(), '(user)', key, value);

/** Sets (or with value undefined, unsets) one key in the shared ref, the local file or the user's file. */
export async function writeConfig(
  repo: Repo,
  objects: ObjectReader,
  person: () => Promise<Signature>,
  key: string,
  value: string | undefined,
  layer: 'shared' | 'local' | 'user',
): Promise<Config> {
  const path = keyPath(key);
  const json = value === undefined ? undefined : coerce(key, value);
  if (layer === 'local') return writeFileLayer(localConfigPath(repo), '(local)', key, value);
  if (layer === 'user') return writeUserConfig(key, value);
  return withLock(repo.lazyDir, 'config', async () => {
    for (let attempt = 0; attempt < 10; attempt++) {
      const { config, tip } = await readConfigAt(objects);
      const wasTrusted = isTrusted(repo, config);
      const safety = isSafetyKey(path[0]!);
      const next = setPath(config, path, json);
      const what = value === undefined ? `unset ${key}` : `set ${key}`;
      const commit = await commitConfig(repo, next, {
        parents: tip ? [tip] : [],
        message: `lazy: config ${what}\n\nLazy-Op: config\n`,
        author: await person(),
      });
      if ((await casRef(repo.cwd, CONFIG_REF, commit, tip, `lazy: config ${what}`)) === 'ok') {
        // You trust what you write yourself, but not the settings it builds on that you had not trusted.
        if (wasTrusted || safety)
          record(repo, config, (s) => (safety ? withKey(s, next, path[0]!) : s), wasTrusted ? next : undefined);
        return next;
      }
    }
    throw contention('the shared config kept changing under this write; try again');
  });
}
