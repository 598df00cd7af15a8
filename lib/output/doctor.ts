import type { AgentFound } from '../agents/inventory.js';
import type { DoctorReport } from '../ops/doctor/index.js';

export function renderDoctor(r: DoctorReport): string {
  const lines = r.agents.map(renderAgent);
  lines.push(...r.findings.map((f) => `${f.level.padEnd(7)} ${f.code}: ${f.message}`));
  for (const f of r.fixed) lines.push(`fixed   ${f}`);
  const count = (level: string) => r.findings.filter((f) => f.level === level).length;
  lines.push(
    `${r.healthy ? 'healthy' : 'UNHEALTHY'}: ${r.tasks} task(s) checked, ` +
      `${count('error')} error(s), ${count('warning')} warning(s)`,
  );
  return lines.join('\n');
}

/** `agent   claude: usable, 2.1.197, /usr/bin/claude (claude adapter, default)`. */
function renderAgent(a: AgentFound): string {
  const about = [`${a.adapter} adapter`, a.default ? 'default' : '', a.model ? `model ${a.model}` : '']
    .filter(Boolean)
    .join(', ');
  const state = a.usable
    ? ['usable', a.version ?? 'no version (--version failed or timed out)', a.path].join(', ')
    : `not usable: ${a.problem}${a.path ? ` (${a.path})` : ''}`;
  return `agent   ${a.name}: ${state} (${about})`;
}
