import { nodeCrypto } from '../core/crypto.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomicSync } from '../core/fsutil.js';
import type { Repo } from '../core/repo.js';
import type { Config } from './config/doc.js';
import { safetyOf, type Safety } from './safety.js';
import { nowIso } from '../core/clock.js';

// Shared settings arrive from the remote with every pull. Agent settings are command
// lines this clone would execute: they run only once this clone has trusted exactly
// that content. Safety settings (lib/store/safety.ts) may not be weakened by a pull:
// this clone records the values it obeys. `lazy config trust` takes the shared settings
// as they are; writing a setting yourself trusts what you wrote.

const trustPath = (repo: Repo) => join(repo.lazyDir, 'trust.json');

export interface TrustFile {
  agents?: string;
  safety?: Safety;
  at?: string;
}

export function readTrust(repo: Repo): TrustFile {
  try {
    const t = JSON.parse(readFileSync(trustPath(repo), 'utf8')) as TrustFile;
    return t && typeof t === 'object' ? t : {};
  } catch {
    return {};
  }
}

function writeTrust(repo: Repo, t: TrustFile): void {
  writeFileAtomicSync(trustPath(repo), JSON.stringify({ ...t, at: nowIso() }));
}

/**
 * The digest of every shared command line: the agents, and forge.pr_command when set (without one the
 * digest is what it was before forge settings existed, so trust recorded then still holds).
 */
export function agentsDigest(shared: Config): string {
  const agents = shared.agents ?? {};
  const canonical: unknown[] = Object.keys(agents)
    .sort()
    .map((k) => [k, Object.entries(agents[k]!).sort()]);
  if (shared.forge?.pr_command) canonical.push(['forge.pr_command', shared.forge.pr_command]);
  return nodeCrypto().createHash('sha256').update(JSON.stringify(canonical)).digest('hex');
}

export function isTrusted(repo: Repo, shared: Config, t?: TrustFile): boolean {
  if ((!shared.agents || Object.keys(shared.agents).length === 0) && !shared.forge?.pr_command) return true;
  return (t ?? readTrust(repo)).agents === agentsDigest(shared);
}

/** `lazy config trust`: the shared agents and safety settings, exactly as they are now. */
export function trust(repo: Repo, shared: Config): string {
  const digest = agentsDigest(shared);
  writeTrust(repo, { agents: digest, safety: safetyOf(shared) });
  return digest;
}

/**
 * Records what this clone now obeys: the agents digest when `agents` is given, and the
 * safety settings `update` derives from the recorded ones (or from `before`, the shared
 * config this clone obeyed until now, when none are recorded yet).
 */
export function record(repo: Repo, before: Config, update: (s: Safety) => Safety, agents?: Config): void {
  const t = readTrust(repo);
  writeTrust(repo, {
    ...t,
    ...(agents ? { agents: agentsDigest(agents) } : {}),
    safety: update(t.safety ?? safetyOf(before)),
  });
}

/** Agents whose settings come, even in part, from shared settings this clone has not trusted. */
export function untrustedAgents(repo: Repo, shared: Config, local: Config, t?: TrustFile): string[] {
  if (isTrusted(repo, shared, t)) return [];
  return Object.entries(shared.agents ?? {})
    .filter(([name, fields]) =>
      Object.keys(fields).some((f) => (local.agents?.[name] as Record<string, unknown> | undefined)?.[f] === undefined),
    )
    .map(([name]) => name);
}
