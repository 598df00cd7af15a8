import { get, query, viewRequests } from './api.js';
import { empty, errorBox, fill, h, section, when, type Child } from './dom.js';
import { attentionText, scheduleText, statusBadge, substateText, tagList } from './labels.js';
import type { Board, InboxItem, ListedTask } from './types.js';

// The board: what needs a person first, then what runs, what waits in the queue, the backlog and what finished.
// The filter form stays in place across refreshes (it is built once per visit); only the sections are replaced.

export interface Filter {
  tags: string[];
  search: string;
}

export function filterFromUrl(): Filter {
  const q = new URLSearchParams(location.search);
  return { tags: q.getAll('tag').filter(Boolean), search: q.get('search') ?? '' };
}

const splitTags = (s: string) => s.split(/[\s,]+/).filter(Boolean);

function filterForm(f: Filter, onChange: (f: Filter) => void): HTMLFormElement {
  const tag = h('input', {
    id: 'filter-tag',
    name: 'tag',
    type: 'text',
    value: f.tags.join(', '),
    autocomplete: 'off',
  });
  const search = h('input', {
    id: 'filter-search',
    name: 'search',
    type: 'search',
    value: f.search,
    autocomplete: 'off',
  });
  const apply = () => onChange({ tags: splitTags(tag.value), search: search.value.trim() });
  // form-action 'none' forbids a real submission: the submit event is handled here and never reaches the network.
  const form = h(
    'form',
    { id: 'filters', class: 'filters', role: 'search', onsubmit: (e: Event) => (e.preventDefault(), apply()) },
    h('label', { for: 'filter-tag' }, 'Tags'),
    tag,
    h('label', { for: 'filter-search' }, 'Text'),
    search,
    h('button', { type: 'submit', class: 'btn' }, 'Filter'),
    h(
      'button',
      {
        type: 'button',
        class: 'btn btn-quiet',
        'data-action': 'clear-filter',
        onclick: () => ((tag.value = ''), (search.value = ''), apply()),
      },
      'Clear',
    ),
  );
  return form;
}

function row(t: ListedTask | InboxItem, ...extra: Child[]): HTMLElement {
  return h(
    'li',
    null,
    h(
      'a',
      { class: 'task-row', href: `/tasks/${encodeURIComponent(t.id)}`, 'data-task': t.id },
      h('span', { class: 'row-main' }, h('span', { class: 'goal' }, t.goal || '(no goal)'), extra),
      h('span', { class: 'row-side' }, statusBadge(t.status), h('code', { class: 'id' }, t.id)),
    ),
  );
}

const note = (text: string | null, cls = 'note') => (text ? h('span', { class: cls }, text) : null);

function inboxRow(t: InboxItem): HTMLElement {
  return row(
    t,
    h(
      'span',
      { class: 'row-meta' },
      note(attentionText(t.attention), 'attention'),
      t.attention?.since ? h('span', { class: 'note' }, 'since ', when(t.attention.since)) : null,
    ),
  );
}

function taskRow(t: ListedTask, detail: string | null): HTMLElement {
  return row(
    t,
    h(
      'span',
      { class: 'row-meta' },
      note(detail),
      tagList(t.tags),
      t.updated_at ? h('span', { class: 'note' }, 'updated ', when(t.updated_at)) : null,
    ),
  );
}

function boardSection<T>(id: string, title: string, items: T[], render: (t: T) => HTMLElement, none: string) {
  const s = section(id, title, items.length ? h('ul', { class: 'rows' }, items.map(render)) : empty(none));
  s.querySelector('h2')?.append(' ', h('span', { class: 'count' }, items.length));
  return s;
}

function sections(b: Board): HTMLElement[] {
  // A queued task is listed once, in the queue, whether or not the server's backlog also holds it.
  const queued = new Set(b.queued.map((t) => t.id));
  const backlog = b.backlog.filter((t) => !queued.has(t.id));
  return [
    boardSection('needs-you', 'Needs you', b.inbox, inboxRow, 'Nothing needs you right now.'),
    boardSection('working', 'Working', b.working, (t) => taskRow(t, substateText(t.substate)), 'No task is working.'),
    boardSection('queued', 'Queued', b.queued, (t) => taskRow(t, scheduleText(t.schedule)), 'The queue is empty.'),
    boardSection('backlog', 'Backlog', backlog, (t) => taskRow(t, scheduleText(t.schedule)), 'The backlog is empty.'),
    boardSection('finished', 'Recently finished', b.finished, (t) => taskRow(t, null), 'Nothing finished yet.'),
  ];
}

export interface BoardView {
  refresh(): Promise<void>;
  close(): void;
}

/**
 * Mounts the board in `root` and loads it; refresh() re-queries with the current filter (ending a query still in
 * flight), close() ends the one in flight.
 */
export function mountBoard(root: HTMLElement): BoardView {
  let filter = filterFromUrl();
  const requests = viewRequests();
  const body = h('div', { id: 'board', class: 'board', 'aria-busy': 'true' });
  const refresh = async () => {
    const signal = requests.round();
    try {
      const b = await get<Board>(`/api/board${query({ tag: filter.tags, search: filter.search })}`, signal);
      if (signal.aborted) return;
      fill(body, sections(b));
    } catch (e) {
      if (!signal.aborted) fill(body, errorBox((e as Error).message, (e as { code?: string }).code));
    } finally {
      body.removeAttribute('aria-busy');
    }
  };
  const onChange = (f: Filter) => {
    filter = f;
    history.replaceState(history.state, '', `/${query({ tag: f.tags, search: f.search })}`);
    void refresh();
  };
  fill(root, h('div', { class: 'page-head' }, h('h1', null, 'Board'), filterForm(filter, onChange)), body);
  void refresh();
  return { refresh, close: requests.close };
}
