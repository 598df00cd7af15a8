import { usageError, untrustedConfig } from '../../core/errors.js';
import type { Config } from '../../store/config/index.js';
import type { Adapter, AdapterName, AgentSpec } from './adapter.js';
import { claude } from './claude.js';
import { codex } from './codex.js';
import { command } from './command.js';
import { gemini } from './gemini/index.js';
import { opencode } from './opencode.js';
import { pi } from './pi.js';
import { splitCommand } from './split.js';

// Resolves an agent name to its adapter and command line from the merged config.

export const ADAPTERS: Record<AdapterName, Adapter> = { claude, codex, command, gemini, opencode, pi };

export const DEFAULT_AGENT = 'claude';

/** The agent names that need no configuration: each runs its adapter's own CLI by that name. */
const BUILTIN: readonly AdapterName[] = ['claude', 'codex', 'gemini', 'opencode', 'pi'];

export function resolveAgent(config: Config, name: string | null | undefined): AgentSpec {
  const agentName = name ?? config.agent ?? DEFAULT_AGENT;
  if (config.untrusted?.includes(agentName)) {
    throw untrustedConfig(
      `the shared settings for agent '${agentName}' (refs/lazy/config) have not been trusted on this clone; ` +
        `review them with lazy config list, then run lazy config trust`,
      { agent: agentName, hint: 'lazy config list; lazy config trust' },
    );
  }
  const entry = config.agents?.[agentName];
  const builtin = BUILTIN.find((b) => b === agentName);
  if (!entry?.command && !builtin) {
    throw usageError(
      `no agent named '${agentName}': define it with lazy config set agents.${agentName}.command "<command line>"`,
    );
  }
  const adapter: AdapterName = entry?.adapter ?? builtin ?? 'command';
  const cmd = splitCommand(entry?.command ?? agentName);
  const extra = entry?.args ? splitCommand(entry.args) : [];
  return {
    name: agentName,
    adapter,
    command: [...cmd, ...extra],
    ...(entry?.permission_mode ? { permissionMode: entry.permission_mode } : {}),
    ...(entry?.interactive ? { interactive: splitCommand(entry.interactive) } : {}),
  };
}
