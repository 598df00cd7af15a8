import { DEFAULT_ARCHIVE_DAYS } from '../store/archive/index.js';
import {
  ENV_KEYS,
  LAYERS,
  getPath,
  keyPath,
  loadConfig,
  localConfigPath,
  userConfigPath,
  writeConfig,
  writeUserConfig,
  type Config,
  type ConfigSnapshot,
  type Layer,
} from '../store/config/index.js';
import { trust } from '../store/trust.js';
import type { Json } from '../core/json.js';
import { usageError } from '../core/errors.js';
import type { App } from './app.js';
import { DEFAULT_RETRY } from '../agents/supervisor/retry.js';
import { DEFAULT_AGENT } from '../agents/adapters/registry.js';
import { DEFAULT_LEASE_SECONDS } from '../fleet/deps.js';
import { CONFIG_REF } from '../core/names.js';
import { AUTO_RESUMES_PER_DAY } from '../model/budget.js';

/** What a setting no layer sets falls back to, where lazy has one (the values its readers use). */
const DEFAULTS: Record<string, Json> = {
  agent: DEFAULT_AGENT,
  mcp: true,
  watchdog_ms: 30 * 60_000,
  stop_grace_ms: 10_000,
  retry_base_ms: DEFAULT_RETRY.baseMs,
  retry_transient_max: DEFAULT_RETRY.transientMax,
  retry_unreachable_max: DEFAULT_RETRY.unreachableMax,
  crash_window_ms: DEFAULT_RETRY.crashWindowMs,
  usage_limit_recheck_ms: DEFAULT_RETRY.usageRecheckMs,
  usage_limit_max_wait_ms: DEFAULT_RETRY.usageMaxWaitMs,
  'work.lease_seconds': DEFAULT_LEASE_SECONDS,
  'archive.after_days': DEFAULT_ARCHIVE_DAYS,
  'archive.on_push': true,
  'budget.auto_resumes_per_day': AUTO_RESUMES_PER_DAY,
};

/**
 * One setting and the layer it comes from (null: unset). held_back: a shared setting this clone does
 * not obey yet, why, and what is in effect instead. With --show-origin: `where` names the file, ref or
 * variable, and `shadowed` marks a value a higher layer overrides.
 */
export interface ConfigValue {
  key: string;
  value: Json | null;
  /** `default`: no layer sets it and lazy's own default is in effect (get only). */
  origin: Layer | 'default' | null;
  untrusted?: boolean;
  held_back?: { reason: string; in_effect: Json | null };
  where?: string;
  shadowed?: boolean;
}

/** The layers, naming on stderr what is ignored (a bad user file, a bad override), as every command's read does. */
async function snapshot(app: App): Promise<ConfigSnapshot> {
  const c = await loadConfig(app.repo, app.store.reader.objects);
  for (const e of c.ignored) app.io.warn(e.message);
  return c;
}

const UNTRUSTED_AGENT =
  'a command line from the shared config (refs/lazy/config) that this clone runs only after lazy config trust';

export async function configSet(
  app: App,
  key: string,
  value: string | undefined,
  layer: 'shared' | 'local' | 'user',
): Promise<ConfigValue> {
  const next = await writeConfig(app.repo, app.store.reader.objects, () => app.store.person(), key, value, layer);
  const v = getPath(next, keyPath(key));
  return { key, value: v ?? null, origin: v === undefined ? null : layer };
}

/** config set --user, anywhere: the user's file needs no repository. */
export async function configSetUser(key: string, value: string | undefined): Promise<ConfigValue> {
  const v = getPath(await writeUserConfig(key, value), keyPath(key));
  return { key, value: v ?? null, origin: v === undefined ? null : 'user' };
}

/**
 * The value in effect and the layer it comes from: the highest that sets it, where a shared safety
 * setting held back still names shared (its value is then what this clone obeys instead).
 */
export async function configGet(app: App, key: string): Promise<ConfigValue> {
  const path = keyPath(key);
  const c = await snapshot(app);
  const value = getPath(c.merged, path);
  const above = (['env', 'local'] as const).find((l) => getPath(c[l], path) !== undefined);
  const held = above ? undefined : c.held.find((h) => h.key === key);
  const below = (['shared', 'user'] as const).find((l) => getPath(c[l], path) !== undefined);
  const origin = above ?? (held ? 'shared' : below) ?? null;
  // get's text is the bare value: why it is not the shared one goes to stderr.
  if (held) app.io.warn(`${key} is held back: ${held.reason}`);
  if (value === undefined && !held && Object.hasOwn(DEFAULTS, key))
    return { key, value: DEFAULTS[key]!, origin: 'default' };
  return {
    key,
    value: value ?? null,
    origin: value === undefined && !held ? null : origin,
    ...(held ? { held_back: { reason: held.reason, in_effect: held.in_effect } } : {}),
  };
}

/** Trusts the shared agent and safety settings as they are now (agents are command lines this clone will run). */
export async function configTrust(app: App): Promise<ConfigValue[]> {
  const c = await snapshot(app);
  trust(app.repo, c.shared);
  return configList(app);
}

/** Every key a layer sets, flattened to dotted paths. */
function flatten(obj: Config, prefix: string[] = []): [string[], Json][] {
  return Object.entries(obj).flatMap(([k, v]): [string[], Json][] =>
    v && typeof v === 'object' && !Array.isArray(v) ? flatten(v as Config, [...prefix, k]) : [[[...prefix, k], v]],
  );
}

/**
 * Every set key with the layer it comes from and what is held back; with `showOrigin`, also the values
 * higher layers shadow (marked), lowest layer first as git lists them, each naming where it lives.
 */
export async function configList(app: App, o: { showOrigin?: boolean } = {}): Promise<ConfigValue[]> {
  const c = await snapshot(app);
  const rows: ConfigValue[] = [];
  for (const layer of LAYERS)
    for (const [path, value] of flatten(c[layer])) {
      const key = path.join('.');
      const held = layer === 'shared' ? c.held.find((h) => h.key === key) : undefined;
      rows.push({
        key,
        value,
        origin: layer,
        ...(layer === 'shared' && untrustedAgent(c, path)
          ? { untrusted: true, held_back: { reason: UNTRUSTED_AGENT, in_effect: null } }
          : held
            ? { held_back: { reason: held.reason, in_effect: held.in_effect } }
            : {}),
        ...(o.showOrigin ? { where: where(app, layer, key) } : {}),
      });
    }
  // A held-back key the shared config no longer sets still shows, with what is in effect instead.
  for (const h of c.held)
    if (getPath(c.shared, keyPath(h.key)) === undefined)
      rows.push({
        key: h.key,
        value: h.shared,
        origin: 'shared',
        held_back: { reason: h.reason, in_effect: h.in_effect },
        ...(o.showOrigin ? { where: CONFIG_REF } : {}),
      });
  const order = (r: ConfigValue) => LAYERS.indexOf(r.origin as Layer);
  rows.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : order(a) - order(b)));
  const top = new Map(rows.map((r) => [r.key, r]));
  return rows
    .filter((r) => o.showOrigin || top.get(r.key) === r)
    .map((r) => (o.showOrigin && top.get(r.key) !== r ? { ...r, shadowed: true } : r));
}

function where(app: App, layer: Layer, key: string): string {
  if (layer === 'user') return userConfigPath();
  if (layer === 'local') return localConfigPath(app.repo);
  if (layer === 'shared') return CONFIG_REF;
  return Object.keys(ENV_KEYS).find((v) => ENV_KEYS[v] === key) ?? 'environment';
}

const untrustedAgent = (c: ConfigSnapshot, path: string[]) =>
  (path[0] === 'agents' && !!c.merged.untrusted?.includes(path[1]!)) ||
  (path.join('.') === 'forge.pr_command' && !!c.merged.untrusted_pr_command);

export interface ConfigCommand {
  action: 'set' | 'unset' | 'get' | 'list' | 'trust';
  key?: string;
  value?: string;
  local?: boolean;
  showOrigin?: boolean;
}

/** `lazy config <action> [key] [value]` in a repository: one of the operations above. */
export async function configCommand(app: App, c: ConfigCommand): Promise<ConfigValue | ConfigValue[]> {
  if (c.action === 'list') return configList(app, { showOrigin: c.showOrigin });
  if (c.action === 'trust') return configTrust(app);
  if (!c.key) throw usageError(`config ${c.action} needs a key`);
  if (c.action === 'get') return configGet(app, c.key);
  if (c.action === 'set' && c.value === undefined) throw usageError(`config set ${c.key} needs a value`);
  return configSet(app, c.key, c.action === 'set' ? String(c.value) : undefined, c.local ? 'local' : 'shared');
}
