import { ApiError, get, query, taskPath, viewRequests } from './api.js';
import { actionsPanel, type ActionsPanel } from './actions.js';
import { renderDiff } from './diff.js';
import { editForm } from './edit.js';
import { empty, errorBox, fill, h, section, when, type Child } from './dom.js';
import { changelogSection, subtasksSection, turnsSection } from './history.js';
import { attentionText, scheduleText, statusBadge, substateText, tagList, usageText } from './labels.js';
import { outputPanel, type OutputPanel } from './live.js';
import { reviewSection } from './review.js';
import type { DiffDoc, ListedTask, LogEntry, TaskView } from './types.js';

// A task's page. It is a fixed row of slots, each refilled on its own at a refresh, so what the person holds stays:
// an open action form (the actions slot is left alone while busy), the live output (kept while the task works)
// and the diff's folded files (the diff is redrawn only when its text changed).

interface Loaded {
  task: TaskView;
  diff: { text: string } | { none: string } | { error: ApiError };
  log: LogEntry[] | null;
  logError: string | null;
  children: ListedTask[];
}

const asApi = (e: unknown) =>
  e instanceof ApiError ? e : new ApiError('error', String((e as Error)?.message ?? e), 0);

async function load(id: string, signal: AbortSignal): Promise<Loaded> {
  const [task, diff, log, children] = await Promise.all([
    get<TaskView>(taskPath(id), signal),
    get<DiffDoc>(taskPath(id, '/diff'), signal).then(
      (d) => ({ text: d.text ?? '' }),
      (e: unknown) => {
        const err = asApi(e);
        // No branch yet is the diff endpoint's 409: nothing to show, not a failure.
        return err.status === 409 ? { none: 'No changes yet.' } : { error: err };
      },
    ),
    get<LogEntry[]>(taskPath(id, '/log'), signal).then(
      (l) => ({ log: l, logError: null }),
      (e: unknown) => ({ log: null, logError: asApi(e).message }),
    ),
    get<ListedTask[]>(`/api/tasks${query({ parent: id, all: true })}`, signal).catch(() => [] as ListedTask[]),
  ]);
  return { task, diff, ...log, children };
}

function metaLine(t: TaskView): HTMLElement {
  const sub = substateText(t.substate);
  const sched = scheduleText(t.schedule);
  return h(
    'p',
    { class: 'task-meta' },
    h('code', { class: 'id', 'data-id': t.id }, t.id),
    statusBadge(t.status),
    sub ? h('span', { class: 'substate' }, sub) : null,
    sched ? h('span', { class: 'note' }, sched) : null,
    tagList(t.tags),
    t.updated_at ? h('span', { class: 'note' }, 'updated ', when(t.updated_at)) : null,
  );
}

function headerOf(t: TaskView): Child[] {
  const att = attentionText(t.attention);
  const pr = t.submission?.url ?? t.pr_url;
  const pending = (t.pending_violations ?? []).map((v) => v.file ?? v.path ?? '').filter(Boolean);
  return [
    h('h1', { class: 'goal' }, t.goal),
    metaLine(t),
    att
      ? h('p', { class: `attention attention-${t.attention!.kind}` }, att, ' · since ', when(t.attention!.since))
      : null,
    pending.length
      ? h('p', { class: 'attention' }, `Protected files wait for a decision: ${pending.join(', ')}`)
      : null,
    pr
      ? h(
          'p',
          { class: 'pr' },
          'Pull request: ',
          // A forge's answer is text: only an http(s) address becomes a link (never javascript: or data:).
          /^https?:\/\//i.test(pr) ? h('a', { href: pr, rel: 'noopener noreferrer', target: '_blank' }, pr) : pr,
        )
      : null,
  ];
}

function criteriaSection(t: TaskView): HTMLElement {
  const acc = t.acceptance ?? [];
  return section(
    'criteria',
    'Acceptance criteria',
    acc.length
      ? h(
          'ol',
          { class: 'criteria' },
          acc.map((c) => h('li', null, c)),
        )
      : empty('No criterion given.'),
    t.prompt ? [h('h3', null, 'Prompt'), h('p', { class: 'prose' }, t.prompt)] : null,
    t.agent || t.base
      ? h(
          'p',
          { class: 'note' },
          [t.agent ? `agent ${t.agent}` : null, t.base ? `base ${t.base}` : null].filter(Boolean).join(' · '),
        )
      : null,
  );
}

function diffBody(d: Loaded['diff']): HTMLElement {
  if ('text' in d) return renderDiff(d.text);
  if ('none' in d) return empty(d.none);
  return errorBox(d.error.message, d.error.code);
}

export interface TaskPage {
  refresh(): Promise<void>;
  close(): void;
}

interface Slots {
  header: HTMLElement;
  actions: HTMLElement;
  criteria: HTMLElement;
  review: HTMLElement;
  diff: HTMLElement;
  output: HTMLElement;
  turns: HTMLElement;
  subtasks: HTMLElement;
  changelog: HTMLElement;
}

function makeSlots(root: HTMLElement): Slots {
  const slot = (name: string) => h('div', { class: `slot slot-${name}` });
  const s: Slots = {
    header: h('header', { class: 'task-head' }),
    actions: slot('actions'),
    criteria: slot('criteria'),
    review: slot('review'),
    diff: slot('diff'),
    output: slot('output'),
    turns: slot('turns'),
    subtasks: slot('subtasks'),
    changelog: slot('changelog'),
  };
  const back = h('nav', { class: 'crumbs', 'aria-label': 'Breadcrumb' }, h('a', { href: '/' }, '← Board'));
  const side = h('div', { class: 'task-side' }, s.criteria, s.review, s.subtasks);
  const mainCol = h('div', { class: 'task-main' }, s.output, s.diff, s.turns, s.changelog);
  fill(root, back, s.header, s.actions, h('div', { class: 'task-grid' }, mainCol, side));
  return s;
}

/**
 * Mounts the page of task `id` in `root`; refresh() re-fetches it (ending a load still in flight), close() ends its
 * requests and its output stream.
 */
export function mountTask(root: HTMLElement, id: string): TaskPage {
  const slots = makeSlots(root);
  fill(slots.header, h('h1', { class: 'goal' }, id), h('p', { class: 'note', role: 'status' }, 'Loading…'));
  const requests = viewRequests();
  let panel: ActionsPanel | undefined;
  let output: OutputPanel | null = null;
  let diffText: string | null = null;
  // A load still in flight when the person leaves must not draw (or open a stream) into the page they left.
  let closed = false;
  const refresh = async (): Promise<void> => {
    if (closed) return;
    // Aborted when a newer refresh starts or the person leaves: then this load draws nothing, not even an error.
    const signal = requests.round();
    let data: Loaded;
    try {
      data = await load(id, signal);
    } catch (e) {
      if (!signal.aborted)
        fill(slots.header, h('h1', { class: 'goal' }, id), errorBox(asApi(e).message, asApi(e).code));
      return;
    }
    if (signal.aborted || closed) return;
    const t = data.task;
    document.title = `${t.goal} · lazy`;
    fill(slots.header, headerOf(t));
    if (!panel?.busy()) {
      panel = actionsPanel(t, () => void refresh(), editForm, panel);
      fill(slots.actions, panel.el);
    }
    fill(slots.criteria, criteriaSection(t));
    fill(slots.review, reviewSection(t));
    const text = 'text' in data.diff ? data.diff.text : null;
    if (text === null || text !== diffText) fill(slots.diff, section('diff', 'Changes', diffBody(data.diff)));
    diffText = text;
    output = followOutput(slots.output, t, output, () => void refresh());
    fill(slots.turns, turnsSection(t));
    fill(slots.subtasks, subtasksSection(data.children));
    fill(slots.changelog, changelogSection(data.log, data.logError));
  };
  void refresh();
  return {
    refresh,
    close: () => {
      closed = true;
      requests.close();
      output?.close();
    },
  };
}

/** The live output while the task works: kept across refreshes, closed once it stops (its lines left in place). */
function followOutput(
  slot: HTMLElement,
  t: TaskView,
  current: OutputPanel | null,
  onEnd: () => void,
): OutputPanel | null {
  if (t.status === 'working') {
    if (current) return current;
    const p = outputPanel(t.id, onEnd);
    const usage = usageText(t.usage);
    fill(slot, section('output', 'Live output', usage ? h('p', { class: 'note' }, usage) : null, p.el));
    return p;
  }
  // The last lines stay for this visit: what the turn did just now is worth reading after it ends.
  current?.close();
  return null;
}
