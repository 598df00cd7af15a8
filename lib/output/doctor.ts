import type { DoctorReport } from '../ops/doctor/index.js';

export function renderDoctor(r: DoctorReport): string {
  const lines = r.findings.map((f) => `${f.level.padEnd(7)} ${f.code}: ${f.message}`);
  for (const f of r.fixed) lines.push(`fixed   ${f}`);
  const count = (level: string) => r.findings.filter((f) => f.level === level).length;
  lines.push(
    `${r.healthy ? 'healthy' : 'UNHEALTHY'}: ${r.tasks} task(s) checked, ` +
      `${count('error')} error(s), ${count('warning')} warning(s)`,
  );
  return lines.join('\n');
}
