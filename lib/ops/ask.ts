import { sanitizeProse } from '../core/sanitize.js';
import { assertAllowed } from '../model/table.js';
import type { TaskView, TurnView } from '../model/fold.js';
import { launchTurn } from '../agents/launch.js';
import { planAsk } from '../agents/turns.js';
import { boundedText } from './create.js';
import { allowedTaskArg } from './resolve.js';
import { waitFor } from './wait.js';
import type { App } from './app.js';

export interface Asked {
  task: TaskView;
  question: string;
  answer: TurnView | null;
}

/**
 * A status-neutral question turn on a blocked or conflict task. The run itself restores
 * the pre-ask status however it ends; this command waits for it and prints the answer.
 */
export async function askTask(app: App, idArg: string, text: string, timeoutS?: number): Promise<Asked> {
  const { id } = await allowedTaskArg(app, idArg, 'ask');
  const question = boundedText('the question', sanitizeProse(text));
  const { run } = await launchTurn(app.repo, app.store, app.launcher, {
    id,
    op: 'ask',
    kind: 'ask',
    config: await app.config(),
    plan: (d, r) => {
      assertAllowed('ask', d.view);
      return planAsk(d, r, question);
    },
  });
  const task = await waitFor(app, id, { timeoutS, until: (v) => v.status !== 'working' || v.current_run !== run.id });
  const answer = task.turns.find((t) => t.run === run.id && t.role === 'agent') ?? null;
  return { task, question, answer };
}
