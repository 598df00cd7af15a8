import { post, taskPath } from './api.js';
import { errorBox, fill, h } from './dom.js';
import type { TaskView } from './types.js';

// The task's actions as buttons, one per available action (the server lists only those the page can run). An
// action that needs words opens an inline form; accept and stop ask for confirmation first.
// Each button is `data-action="<action>"`, a form's submit is `data-action="confirm"`, its dismissal "cancel".

type Body = Record<string, unknown>;

interface TextSpec {
  label: string;
  field: string;
  required: boolean;
  submit: string;
}

const TEXT: Record<string, TextSpec> = {
  unblock: { label: 'Changes to request', field: 'message', required: true, submit: 'Request changes' },
  answer: { label: 'Your answer', field: 'message', required: true, submit: 'Answer' },
  comment: { label: 'Comment', field: 'message', required: true, submit: 'Comment' },
  ask: { label: 'Question for the agent', field: 'question', required: true, submit: 'Ask' },
  follow_up: { label: 'One more piece of work', field: 'message', required: true, submit: 'Follow up' },
  repair: { label: 'What the repair agent should fix', field: 'message', required: true, submit: 'Repair' },
  reopen: { label: 'Why reopen it (required for a complete task)', field: 'reason', required: false, submit: 'Reopen' },
  close: { label: 'Reason (optional)', field: 'reason', required: false, submit: 'Close' },
  reject: { label: 'Reason (optional)', field: 'reason', required: false, submit: 'Reject' },
};

const LABELS: Record<string, string> = {
  unblock: 'Request changes',
  accept: 'Accept',
  reject: 'Reject',
  close: 'Close',
  reopen: 'Reopen',
  comment: 'Comment',
  answer: 'Answer',
  ask: 'Ask',
  follow_up: 'Follow up',
  repair: 'Repair',
  start: 'Start',
  stop: 'Stop',
  resume: 'Resume',
  queue: 'Queue',
  unqueue: 'Unqueue',
  pause: 'Pause',
  unpause: 'Unpause',
  submit: 'Submit PR',
  edit: 'Edit',
};

/** What the page never offers: pair needs a terminal. */
const OFF_PAGE = new Set(['pair']);

const PRIMARY = new Set(['accept', 'start', 'answer']);
const DANGER = new Set(['reject', 'close', 'stop']);

export interface ActionsPanel {
  el: HTMLElement;
  /** The last outcome's line (done, or a refusal), carried into the panel that replaces this one. */
  status: HTMLElement;
  /** A form is open or a request is in flight: a refresh must leave the panel as it is. */
  busy(): boolean;
}

export type Done = (action: string, result: unknown) => void;

interface Ctx {
  task: TaskView;
  slot: HTMLElement;
  status: HTMLElement;
  buttons: HTMLButtonElement[];
  inFlight: boolean;
  onDone: Done;
}

const requires = (t: TaskView, action: string, what: string) =>
  (t.action_conditions ?? []).some((c) => c.action === action && c.requires === what);

/** Posts the action; a refusal is shown in `where` (the open form, or the panel's status line). */
async function run(ctx: Ctx, action: string, body: Body, where: HTMLElement, controls: HTMLButtonElement[]) {
  const all = [...ctx.buttons, ...controls];
  ctx.inFlight = true;
  for (const b of all) b.disabled = true;
  fill(
    where,
    h(
      'p',
      { class: 'pending', role: 'status' },
      action === 'ask' ? 'Asking; waiting for the agent to answer…' : `${LABELS[action] ?? action}…`,
    ),
  );
  try {
    const result = await post(taskPath(ctx.task.id, `/${encodeURIComponent(action)}`), body);
    ctx.inFlight = false;
    fill(ctx.slot);
    fill(ctx.status, h('p', { class: 'notice', role: 'status' }, doneText(action, result)));
    ctx.onDone(action, result);
  } catch (e) {
    ctx.inFlight = false;
    fill(where, errorBox((e as Error).message, (e as { code?: string }).code));
  } finally {
    for (const b of all) b.disabled = false;
  }
}

function doneText(action: string, result: unknown): string {
  // queue and its kin answer as the CLI prints them: one {task} per id, an array.
  const r = (Array.isArray(result) ? result[0] : result) as { answer?: unknown; task?: { status?: string } } | null;
  if (action === 'ask' && typeof r?.answer === 'string') return `The agent answered: ${r.answer}`;
  const status = r?.task?.status;
  return `${LABELS[action] ?? action}: done${status ? ` (now ${status})` : ''}.`;
}

/** One approve/revert choice per protected file waiting for a decision. */
function decisionFields(t: TaskView): HTMLElement {
  const files = (t.pending_violations ?? []).map((v) => v.file ?? v.path ?? '').filter(Boolean);
  const rows = files.map((file, i) =>
    h(
      'li',
      { class: 'decision', 'data-file': file },
      h('code', null, file),
      ...(['approve', 'revert'] as const).map((choice) =>
        h(
          'label',
          { class: 'choice' },
          h('input', {
            type: 'radio',
            name: `decision-${i}`,
            value: choice,
            'data-file': file,
            'data-decision': choice,
            required: true,
          }),
          ` ${choice}`,
        ),
      ),
    ),
  );
  return h(
    'fieldset',
    { class: 'decisions' },
    h('legend', null, 'Protected files changed: approve or revert each'),
    files.length
      ? h('ul', null, rows)
      : h('p', { class: 'empty' }, 'The task lists no file; the server will say what it needs.'),
  );
}

function readDecisions(form: HTMLElement): Body {
  const approve: string[] = [];
  const revert: string[] = [];
  for (const r of form.querySelectorAll<HTMLInputElement>('input[data-decision]:checked'))
    (r.value === 'approve' ? approve : revert).push(r.dataset.file ?? '');
  return { approve_files: approve, revert_files: revert };
}

export interface FormSpec {
  action: string;
  intro: string | null;
  fields: HTMLElement[];
  submit: string;
  read: (form: HTMLFormElement) => Body;
}

function actionForm(ctx: Ctx, spec: FormSpec): HTMLFormElement {
  const out = h('div', { class: 'form-status' });
  const confirm = h(
    'button',
    {
      type: 'submit',
      class: `btn ${DANGER.has(spec.action) ? 'btn-danger' : 'btn-primary'}`,
      'data-action': 'confirm',
    },
    spec.submit,
  );
  const cancel = h(
    'button',
    { type: 'button', class: 'btn btn-quiet', 'data-action': 'cancel', onclick: () => closeForm(ctx) },
    'Cancel',
  );
  const form = h(
    'form',
    { class: 'action-form', 'data-form': spec.action, 'aria-label': `${LABELS[spec.action] ?? spec.action} the task` },
    spec.intro ? h('p', { class: 'confirm-text' }, spec.intro) : null,
    spec.fields,
    h('div', { class: 'form-buttons' }, confirm, cancel),
    out,
  );
  // form-action 'none' blocks a real submission; the event is taken here (it still runs the browser's validation).
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    void run(ctx, spec.action, spec.read(form), out, [confirm, cancel]);
  });
  return form;
}

function textField(id: string, spec: TextSpec): HTMLElement {
  return h(
    'div',
    { class: 'field' },
    h('label', { for: id }, spec.label),
    h('textarea', { id, name: spec.field, rows: 4, required: spec.required }),
  );
}

function formFor(ctx: Ctx, action: string): FormSpec {
  const t = ctx.task;
  const decide = requires(t, action, 'decisions');
  const fields: HTMLElement[] = [];
  const text = TEXT[action];
  if (text) fields.push(textField(`action-${action}-text`, text));
  if (decide) fields.push(decisionFields(t));
  if (action === 'close' || action === 'reject')
    fields.push(
      h(
        'label',
        { class: 'choice' },
        h('input', { type: 'checkbox', name: 'delete_branch' }),
        ' also delete the task branch',
      ),
    );
  const intro =
    action === 'accept'
      ? `Accept “${t.goal}”: squash-merge its branch into ${t.base ?? 'its base'}.`
      : action === 'stop'
        ? requires(t, 'stop', 'force')
          ? 'This turn runs in another clone: stopping breaks its claim (stop --force).'
          : 'Stop the running turn? The agent is terminated and the task waits for you (interrupted).'
        : null;
  const read = (form: HTMLFormElement): Body => {
    const body: Body = decide ? readDecisions(form) : {};
    const area = form.querySelector('textarea');
    if (text && area && area.value.trim()) body[text.field] = area.value;
    const del = form.querySelector<HTMLInputElement>('input[name="delete_branch"]');
    if (del?.checked) body.delete_branch = true;
    if (action === 'stop' && requires(t, 'stop', 'force')) body.force = true;
    return body;
  };
  return {
    action,
    intro,
    fields,
    submit: text?.submit ?? (action === 'accept' ? 'Confirm accept' : `Confirm ${action}`),
    read,
  };
}

function closeForm(ctx: Ctx): void {
  fill(ctx.slot);
  for (const b of ctx.buttons) b.removeAttribute('aria-expanded');
}

function openForm(ctx: Ctx, spec: FormSpec, button: HTMLButtonElement): void {
  closeForm(ctx);
  fill(ctx.status);
  button.setAttribute('aria-expanded', 'true');
  const form = actionForm(ctx, spec);
  fill(ctx.slot, form);
  form.querySelector<HTMLElement>('textarea, input, button[data-action="confirm"]')?.focus();
}

/** edit is its own form (lib/ui/page/edit.ts); the rest are a text, a confirmation, or a plain post. */
export type EditForm = (t: TaskView) => Omit<FormSpec, 'action'>;

function onClick(ctx: Ctx, action: string, button: HTMLButtonElement, edit: EditForm): void {
  const t = ctx.task;
  if (action === 'edit') return openForm(ctx, { action, ...edit(t) }, button);
  // accept and stop always ask first: one lands work on a branch, the other ends an agent's turn.
  const needsForm = action in TEXT || action === 'accept' || action === 'stop';
  if (needsForm || requires(t, action, 'decisions')) return openForm(ctx, formFor(ctx, action), button);
  closeForm(ctx);
  void run(ctx, action, {}, ctx.status, []);
}

/** The actions panel for a task; `edit` builds edit's form; the previous panel's outcome line is kept. */
export function actionsPanel(task: TaskView, onDone: Done, edit: EditForm, previous?: ActionsPanel): ActionsPanel {
  const slot = h('div', { class: 'action-slot' });
  const status = h('div', { class: 'action-status' });
  if (previous) status.replaceChildren(...previous.status.childNodes);
  const ctx: Ctx = { task, slot, status, buttons: [], inFlight: false, onDone };
  const actions = (task.available_actions ?? []).filter((a) => !OFF_PAGE.has(a));
  for (const action of actions) {
    const cls = PRIMARY.has(action) ? 'btn-primary' : DANGER.has(action) ? 'btn-danger' : '';
    const b = h('button', { type: 'button', class: `btn ${cls}`, 'data-action': action }, LABELS[action] ?? action);
    b.addEventListener('click', () => onClick(ctx, action, b, edit));
    ctx.buttons.push(b);
  }
  const bar = actions.length
    ? h('div', { class: 'action-buttons', role: 'group', 'aria-label': 'Actions' }, ctx.buttons)
    : h('p', { class: 'empty' }, 'No action is open for this task.');
  const el = h('div', { id: 'actions', class: 'actions' }, bar, slot, status);
  return { el, status, busy: () => ctx.inFlight || slot.childElementCount > 0 };
}
