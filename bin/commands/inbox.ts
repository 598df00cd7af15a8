import type { Argv } from 'yargs';
import { run, type GlobalArgs } from '../run.js';
import { renderInbox } from '../../lib/output/inbox.js';

export const command = 'inbox';
export const describe = 'Tasks that need a human, oldest first, with what they need';
export const builder = (y: Argv) => y;

export const handler = (a: GlobalArgs) =>
  run(
    a,
    async (app) => {
      const { inbox } = await import('../../lib/ops/review.js');
      return inbox(app);
    },
    renderInbox,
  );
