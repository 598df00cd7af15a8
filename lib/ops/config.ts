import { getPath, keyPath, loadConfig, writeConfig, type Config } from '../store/config.js';
import { trust } from '../store/trust.js';
import type { Json } from '../model/docs.js';
import type { App } from './app.js';

export interface ConfigValue { key: string; value: Json | null; source: 'local' | 'shared' | 'unset'; untrusted?: boolean }

export async function configSet(app: App, key: string, value: string | undefined, local: boolean): Promise<ConfigValue> {
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
  return { key, value: value ?? null, source: local !== undefined ? 'local' : shared !== undefined ? 'shared' : 'unset' };
}

/** Trusts the shared agent settings as they are now (they are command lines this clone will run). */
export async function configTrust(app: App): Promise<ConfigValue[]> {
  const c = await loadConfig(app.repo, app.store.reader.objects);
  trust(app.repo, c.shared);
  return configList(app);
}

/** Every set key, flattened to dotted paths, with where it comes from. */
export async function configList(app: App): Promise<ConfigValue[]> {
  const c = await loadConfig(app.repo, app.store.reader.objects);
  const out = new Map<string, ConfigValue>();
  const walk = (obj: Config, source: 'local' | 'shared', prefix = '') => {
    for (const [k, v] of Object.entries(obj)) {
      const key = prefix ? `${prefix}.${k}` : k;
      if (v && typeof v === 'object' && !Array.isArray(v)) walk(v as Config, source, key);
      else out.set(key, { key, value: v as Json, source });
    }
  };
  walk(c.shared, 'shared');
  walk(c.local, 'local');
  const untrusted = new Set(c.merged.untrusted ?? []);
  return [...out.values()].sort((a, b) => (a.key < b.key ? -1 : 1))
    .map((v) => (v.source === 'shared' && untrusted.has(v.key.split('.')[1] ?? '') && v.key.startsWith('agents.') ? { ...v, untrusted: true } : v));
}
