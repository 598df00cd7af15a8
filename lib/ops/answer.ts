import { sanitizeProse } from '../core/sanitize.js';
import { assertAllowed } from '../model/table.js';
import { pendingQuestion, workTurns } from '../model/attention.js';
import { planFeedback, planStart } from '../agents/turns.js';
import { boundedText } from './create.js';
import { allowedTaskArg } from './resolve.js';
import type { App } from './app.js';
import { launchText, type TurnStarted } from './turn.js';

/** answer: resolves a pending decision and starts the turn that acts on it. */
export async function answerTask(app: App, idArg: string, text: string): Promise<TurnStarted> {
  const { id, view } = await allowedTaskArg(app, idArg, 'answer');
  const content = boundedText('the answer', sanitizeProse(text));
  // An ask's or a round's agent turn since the agent's question answers nothing: the answer is to that question.
  const clarifying = !pendingQuestion(workTurns(view.turns, view.changelog));
  return launchText(app, id, 'answer', (d, r) => {
    assertAllowed('answer', d.view);
    if (!clarifying) return planFeedback(d, r, 'answer', content);
    // The answer to "what does done look like" becomes a criterion, then the first turn starts.
    d.setTask({ acceptance: [...d.view.acceptance, content] });
    d.turn({ role: 'human', kind: 'answer', content, session: r.session });
    return planStart(d, r, 'answer');
  });
}
