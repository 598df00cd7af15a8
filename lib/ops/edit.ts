import { sanitizeLine, sanitizeProse } from '../core/sanitize.js';
import { assertAllowed } from '../model/table.js';
import type { TaskView } from '../model/fold.js';
import { agentName, boundedText, modelName, tagOf } from './create.js';
import { allowedTaskArg } from './resolve.js';
import type { App } from './app.js';

export interface EditInput {
  goal?: string;
  prompt?: string;
  accept?: string[];
  tags?: string[];
  agent?: string;
  /** The task's model; '' removes it (its agent's configured model applies again). */
  model?: string;
  /** The whole list, as the editor left it (lib/ops/editor.ts); the flags add instead. */
  setAcceptance?: string[];
  setTags?: string[];
}

/** Changes the task record; criteria and tags are added (or set, from the editor), goal and prompt replaced. */
export async function editTask(app: App, idArg: string, e: EditInput): Promise<{ task: TaskView }> {
  const { id } = await allowedTaskArg(app, idArg, 'edit');
  const { view } = await app.store.mutate(id, 'edit', (d) => {
    assertAllowed('edit', d.view);
    const cur = d.task ?? d.docs.task;
    const patch: Parameters<typeof d.setTask>[0] = {};
    if (e.goal !== undefined && e.goal.trim()) patch.goal = boundedText('the goal', sanitizeLine(e.goal.trim()));
    if (e.prompt !== undefined)
      patch.prompt = e.prompt.trim() ? boundedText('the prompt', sanitizeProse(e.prompt)) : null;
    if (e.accept?.length)
      patch.acceptance = [
        ...cur.acceptance,
        ...e.accept.map((a) => boundedText('a criterion', sanitizeProse(a.trim()))).filter(Boolean),
      ];
    const tags = (list: string[]) => list.map((t) => boundedText('a tag', tagOf(t))).filter(Boolean);
    if (e.tags?.length) patch.tags = [...new Set([...cur.tags, ...tags(e.tags)])];
    if (e.setAcceptance)
      patch.acceptance = e.setAcceptance
        .map((a) => boundedText('a criterion', sanitizeProse(a.trim())))
        .filter(Boolean);
    if (e.setTags) patch.tags = [...new Set(tags(e.setTags))];
    if (e.agent !== undefined) patch.agent = e.agent ? agentName(e.agent) : null;
    // No model is no key at all: a task record without one reads on every release.
    if (e.model !== undefined) patch.model = e.model ? modelName(e.model) : undefined;
    if (Object.keys(patch).length) d.setTask(patch);
    d.summary = Object.keys(patch).join(', ');
  });
  return { task: view };
}
