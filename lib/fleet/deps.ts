import type { Repo } from '../core/repo.js';
import type { Launcher } from '../core/launcher.js';
import type { Store } from '../store/store.js';
import type { Config } from '../store/config/index.js';

// What every fleet step works with: this clone, the remote it coordinates through, and the lease.

export interface FleetDeps {
  repo: Repo;
  store: Store;
  launcher: Launcher;
  config: Config;
  remote: string;
  /** How long a claim's lease lasts (work.lease_seconds); it is renewed at a third of that. */
  leaseMs: number;
  now(): number;
}

export const DEFAULT_LEASE_SECONDS = 300;

export const leaseMsOf = (c: Config) => (c.work?.lease_seconds ?? DEFAULT_LEASE_SECONDS) * 1000;
