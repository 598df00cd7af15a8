import { openRepo } from '../../lib/core/repo.js';
import { withEnv } from '../../lib/core/env.js';
import { Store } from '../../lib/store/store.js';
import { loadConfig } from '../../lib/store/config/index.js';
import { pull } from '../../lib/sync/sync.js';
import type { FleetDeps } from '../../lib/fleet/deps.js';
import { detachedLauncher } from '../../lib/core/launcher.js';
import { LAZY, type Sandbox } from './env.js';

// A clone as a fleet worker sees it, in this process: FleetDeps over the clone's repository,
// and a pull that returns the remote's tips. Every call runs under the clone's environment.

export interface Machine {
  sb: Sandbox;
  deps: FleetDeps;
  /** Runs f under this clone's environment (its host name, its git identity). */
  as<T>(f: () => Promise<T>): Promise<T>;
  pull(): Promise<Map<string, string>>;
  close(): void;
}

export async function machine(sb: Sandbox, leaseMs = 30_000): Promise<Machine> {
  const as = <T>(f: () => Promise<T>) => withEnv(sb.env, f);
  const deps = await as(async () => {
    const repo = await openRepo(sb.dir);
    const store = new Store(repo);
    const config = (await loadConfig(repo, store.reader.objects)).merged;
    const d: FleetDeps = {
      repo,
      store,
      launcher: detachedLauncher(LAZY),
      config,
      remote: 'origin',
      leaseMs,
      now: () => Date.now(),
    };
    return d;
  });
  return {
    sb,
    deps,
    as,
    pull: () => as(async () => (await pull({ repo: deps.repo, reader: deps.store.reader }, 'origin')).tips),
    close: () => deps.store.close(),
  };
}
