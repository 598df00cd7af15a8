import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomicSync } from '../core/fsutil.js';
import type { Repo } from '../core/repo.js';
import type { Config } from './config.js';

// Shared agent settings are command lines this clone would execute, and they arrive
// from the remote with every pull. They run only once this clone has trusted exactly
// that content (`lazy config trust`); writing them yourself trusts what you wrote.

const trustPath = (repo: Repo) => join(repo.lazyDir, 'trust.json');

export function agentsDigest(shared: Config): string {
  const agents = shared.agents ?? {};
  const canonical = Object.keys(agents).sort().map((k) => [k, Object.entries(agents[k]!).sort()]);
  return createHash('sha256').update(JSON.stringify(canonical)).digest('hex');
}

export function isTrusted(repo: Repo, shared: Config): boolean {
  if (!shared.agents || Object.keys(shared.agents).length === 0) return true;
  try {
    return (JSON.parse(readFileSync(trustPath(repo), 'utf8')) as { agents?: string }).agents === agentsDigest(shared);
  } catch {
    return false;
  }
}

export function trust(repo: Repo, shared: Config): string {
  const digest = agentsDigest(shared);
  writeFileAtomicSync(trustPath(repo), JSON.stringify({ agents: digest, at: new Date().toISOString() }));
  return digest;
}

/** Agents whose settings come, even in part, from shared settings this clone has not trusted. */
export function untrustedAgents(repo: Repo, shared: Config, local: Config): string[] {
  if (isTrusted(repo, shared)) return [];
  return Object.entries(shared.agents ?? {})
    .filter(([name, fields]) => Object.keys(fields).some((f) => (local.agents?.[name] as Record<string, unknown> | undefined)?.[f] === undefined))
    .map(([name]) => name);
}
