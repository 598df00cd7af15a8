import type { Argv } from 'yargs';
import { run, type GlobalArgs } from '../run.js';
import { renderDoctor } from '../../lib/output/doctor.js';
import { EXIT } from '../../lib/core/errors.js';

export const command = 'doctor';
export const describe = 'Validate every task and report leftovers; exit 0 only when healthy';
export const builder = (y: Argv) =>
  y.option('fix', { type: 'boolean', describe: 'remove leftovers that are verifiably dead' });

export const handler = (a: GlobalArgs & { fix?: boolean }) =>
  run(
    a,
    async (app) => {
      const { doctor } = await import('../../lib/ops/doctor.js');
      return doctor(app, { fix: a.fix });
    },
    renderDoctor,
    { exit: (r) => (r.healthy ? EXIT.ok : EXIT.invalidData) },
  );
