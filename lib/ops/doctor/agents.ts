import { listAgents, type AgentFound } from '../../agents/inventory.js';
import type { Pass } from './pass.js';

// The agents doctor lists. One that is missing or unusable is information, not a fault of
// the repository: only the default agent (the one `lazy start` runs when a task names none)
// earns a finding, a warning, and doctor's exit code stays the store's.

/** Their --version probes are other processes: started first, they run while the store is checked. */
export const probeAgents = async ({ app }: Pass): Promise<AgentFound[]> => listAgents(await app.config(), app.repo.top);

/** The finding, after the others (its place in the list never depends on how fast a CLI answered). */
export function reportAgents({ findings }: Pass, agents: AgentFound[]): AgentFound[] {
  const byDefault = agents.find((a) => a.default);
  if (byDefault && !byDefault.usable)
    findings.push({
      level: 'warning',
      code: 'default_agent_unusable',
      message: `the default agent ${byDefault.name} cannot run a turn: ${byDefault.problem}`,
      details: { agent: byDefault.name, problem: byDefault.problem },
    });
  return agents;
}
