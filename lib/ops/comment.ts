import { sanitizeProse } from '../core/sanitize.js';
import { assertAllowed } from '../model/table.js';
import type { TaskView } from '../model/fold.js';
import { boundedText } from './create.js';
import { allowedTaskArg } from './resolve.js';
import type { App } from './app.js';

/** A human turn that changes no status. */
export async function commentTask(app: App, idArg: string, text: string): Promise<{ task: TaskView }> {
  const { id } = await allowedTaskArg(app, idArg, 'comment');
  const content = boundedText('the comment', sanitizeProse(text));
  const { view } = await app.store.mutate(id, 'comment', (d) => {
    assertAllowed('comment', d.view);
    d.turn({ role: 'human', kind: 'comment', content });
    d.summary = firstLine(content);
  });
  return { task: view };
}

export const firstLine = (s: string, max = 72) => {
  const line = s.trim().split('\n')[0] ?? '';
  return line.length > max ? line.slice(0, max - 1) + '…' : line;
};
