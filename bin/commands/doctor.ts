import { CONTRACTS as C, type CliArgs } from '../../lib/ops/contract/index.js';
import { commandOf } from '../contract.js';
import { run, type GlobalArgs } from '../run.js';
import { renderDoctor } from '../../lib/output/doctor.js';
import { EXIT } from '../../lib/core/errors.js';

export const { command, describe, builder } = commandOf(C.doctor);

export const handler = (a: GlobalArgs & CliArgs<typeof C.doctor>) =>
  run(
    a,
    async (app) => {
      const { doctor } = await import('../../lib/ops/doctor/index.js');
      return doctor(app, { fix: a.fix });
    },
    renderDoctor,
    { exit: (r) => (r.healthy ? EXIT.ok : EXIT.invalidData) },
  );
