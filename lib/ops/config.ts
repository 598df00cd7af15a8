import { getPath, keyPath, loadConfig, writeConfig, type Config, type ConfigSnapshot } from '../store/config.js';
import { trust } from '../store/trust.js';
import type { Json } from '../core/json.js';
import type { App } from './app.js';

/** held_back: a shared setting this clone does not obey yet, why, and what is in effect instead. */
export interface ConfigValue {
  key: string;
  value: Json | null;
  source: 'local' | 'shared' | 'unset';
  untrusted?: boolean;
  held_back?: { reason: string; in_effect: Json | null };
}

const UNTRUSTED_AGENT =
  'a command line from the shared config (refs/lazy/config) that this clone runs only after lazy config trust';

export async function configSet(
  app: App,
  key: string,
  value: string | undefined,
  local: boolean,
): Promise<ConfigValue> {
  const next = await writeConfig(app.repo, app.store.reader.objects, () => app.store.person(), key, value, local);
  const v = getPath(next, keyPath(key));
  return { key, value: v ?? null, source: v === undefined ? 'unset' : local ? 'local' : 'shared' };
}

export async function configGet(app: App, key: string): Promise<ConfigValue> {
  const path = keyPath(key);
  const c = await loadConfig(app.repo, app.store.reader.objects);
  const local = getPath(c.local, path);
  const shared = getPath(c.shared, path);
  const value = getPath(c.merged, path);
  const held = local === undefined ? c.held.find((h) => h.key === key) : undefined;
  return {
    key,
    value: value ?? null,
    source: local !== undefined ? 'local' : shared !== undefined ? 'shared' : 'unset',
    ...(held ? { held_back: { reason: held.reason, in_effect: held.in_effect } } : {}),
  };
}

/** Trusts the shared agent and safety settings as they are now (agents are command lines this clone will run). */
export async function configTrust(app: App): Promise<ConfigValue[]> {
  const c = await loadConfig(app.repo, app.store.reader.objects);
  trust(app.repo, c.shared);
  return configList(app);
}

/** Every set key, flattened to dotted paths, with where it comes from and what is held back. */
export async function configList(app: App): Promise<ConfigValue[]> {
  const c = await loadConfig(app.repo, app.store.reader.objects);
  const out = new Map<string, ConfigValue>();
  const walk = (obj: Config, source: 'local' | 'shared', prefix: string[] = []) => {
    for (const [k, v] of Object.entries(obj)) {
      const path = [...prefix, k];
      if (v && typeof v === 'object' && !Array.isArray(v)) walk(v as Config, source, path);
      else
        out.set(path.join('.'), {
          key: path.join('.'),
          value: v as Json,
          source,
          ...(source === 'shared' && untrustedAgent(c, path)
            ? { untrusted: true, held_back: { reason: UNTRUSTED_AGENT, in_effect: null } }
            : {}),
        });
    }
  };
  walk(c.shared, 'shared');
  walk(c.local, 'local');
  for (const h of c.held) {
    const v = out.get(h.key);
    if (v?.source === 'local') continue;
    out.set(h.key, {
      key: h.key,
      value: h.shared,
      source: 'shared',
      held_back: { reason: h.reason, in_effect: h.in_effect },
    });
  }
  return [...out.values()].sort((a, b) => (a.key < b.key ? -1 : 1));
}

const untrustedAgent = (c: ConfigSnapshot, path: string[]) =>
  (path[0] === 'agents' && !!c.merged.untrusted?.includes(path[1]!)) ||
  (path.join('.') === 'forge.pr_command' && !!c.merged.untrusted_pr_command);
