import type { Argv } from 'yargs';
import { run, messageArg, type GlobalArgs } from '../run.js';
import { renderAsked } from '../../lib/output/turns.js';

export const command = 'ask <id>';
export const describe = "Ask the task's agent a question; its status is unchanged afterwards";
export const builder = (y: Argv) =>
  y
    .positional('id', { type: 'string', describe: 'the task whose agent to ask' })
    .option('message', { alias: 'm', type: 'string', describe: 'the question' })
    .option('timeout', { type: 'number', describe: 'give up waiting after S seconds (the answer is still recorded)' });

export const handler = (a: GlobalArgs & { id: string; message?: string; timeout?: number }) =>
  run(
    a,
    async (app) => {
      const { askTask } = await import('../../lib/ops/ask.js');
      return askTask(app, String(a.id), (await messageArg(a.message, 'a question', true))!, a.timeout);
    },
    renderAsked,
  );
