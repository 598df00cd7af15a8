import { h } from './dom.js';
import type { FormSpec } from './actions.js';
import type { TaskView } from './types.js';

// edit's form: the task's goal, prompt, criteria and tags, filled with what they are now. Only what changed is
// sent, so an untouched field is never rewritten (and an edit of nothing is the CLI's own refusal).

const lines = (s: string) =>
  s
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);

const tagsOf = (s: string) => s.split(/[\s,]+/).filter(Boolean);

const same = (a: string[], b: string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

function field(id: string, label: string, control: HTMLElement, hint?: string): HTMLElement {
  return h(
    'div',
    { class: 'field' },
    h('label', { for: id }, label),
    control,
    hint ? h('p', { class: 'hint' }, hint) : null,
  );
}

export function editForm(t: TaskView): Omit<FormSpec, 'action'> {
  const goal = h('input', { id: 'edit-goal', name: 'goal', type: 'text', value: t.goal, required: true });
  const prompt = h('textarea', { id: 'edit-prompt', name: 'prompt', rows: 4 });
  prompt.value = t.prompt ?? '';
  const accept = h('textarea', { id: 'edit-accept', name: 'accept', rows: 3 });
  accept.value = (t.acceptance ?? []).join('\n');
  const tags = h('input', { id: 'edit-tags', name: 'tags', type: 'text', value: (t.tags ?? []).join(', ') });
  const read = () => {
    const body: Record<string, unknown> = {};
    if (goal.value.trim() !== t.goal) body.goal = goal.value.trim();
    if (prompt.value !== (t.prompt ?? '')) body.prompt = prompt.value;
    if (!same(lines(accept.value), t.acceptance ?? [])) body.accept = lines(accept.value);
    if (!same(tagsOf(tags.value), t.tags ?? [])) body.tags = tagsOf(tags.value);
    return body;
  };
  return {
    intro: null,
    fields: [
      field('edit-goal', 'Goal', goal),
      field('edit-prompt', 'Prompt', prompt),
      field('edit-accept', 'Acceptance criteria', accept, 'One per line.'),
      field('edit-tags', 'Tags', tags, 'Separated by commas or spaces.'),
    ],
    submit: 'Save',
    read,
  };
}
