import type { DoctorReport } from '../ops/doctor.js';

export function renderDoctor(r: DoctorReport): string {
  const lines = r.findings.map((f) => `${f.level.padEnd(7)} ${f.code}: ${f.message}`);
  for (const f of r.fixed) lines.push(`fixed   ${f}`);
  lines.push(
    `${r.healthy ? 'healthy' : 'UNHEALTHY'}: ${r.tasks} task(s) checked, ${r.findings.filter((f) => f.level === 'error').length} error(s), ${r.findings.filter((f) => f.level === 'warning').length} warning(s)`,
  );
  return lines.join('\n');
}
