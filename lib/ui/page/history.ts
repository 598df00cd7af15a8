import { empty, h, section, short, when } from './dom.js';
import { statusBadge } from './labels.js';
import type { ListedTask, LogEntry, TaskView, Turn } from './types.js';

// The task's past: its conversation (turns), its changelog (the commits of its ref, `lazy log`), its subtasks.

const who = (t: Turn) =>
  t.person && t.actor !== 'agent' && t.actor !== 'system' ? t.person.name : (t.actor ?? t.role);

function turnItem(t: Turn): HTMLElement {
  const feedback =
    t.feedback === 'pending' ? 'feedback pending' : t.feedback === 'consumed' ? 'feedback delivered' : null;
  return h(
    'li',
    { class: `turn role-${t.role} kind-${t.kind}`, 'data-turn': t.id ?? '' },
    h(
      'div',
      { class: 'turn-head' },
      h('span', { class: 'turn-who' }, who(t)),
      h('span', { class: 'turn-kind' }, t.kind),
      when(t.timestamp),
      feedback ? h('span', { class: 'note' }, feedback) : null,
    ),
    h('div', { class: 'turn-body prose' }, t.content),
  );
}

export function turnsSection(t: TaskView): HTMLElement {
  const turns = t.turns ?? [];
  return section(
    'turns',
    'Conversation',
    turns.length ? h('ol', { class: 'turns' }, turns.map(turnItem)) : empty('No turn yet.'),
  );
}

function logRow(e: LogEntry): HTMLElement {
  const at = e.date ?? e.time ?? null;
  const move = e.from && e.to && e.from !== e.to ? `${e.from} → ${e.to}` : (e.to ?? '');
  return h(
    'tr',
    null,
    h('td', null, when(at)),
    h('td', null, e.op ?? e.action ?? e.subject ?? ''),
    h('td', null, e.actor ?? e.author ?? ''),
    h('td', null, move),
    h('td', null, h('code', null, short(e.commit))),
  );
}

/** The changelog; `log` is null when it could not be read (the message says why). */
export function changelogSection(log: LogEntry[] | null, failure: string | null): HTMLElement {
  if (!log) return section('changelog', 'Changelog', empty(failure ?? 'The changelog could not be read.'));
  if (!log.length) return section('changelog', 'Changelog', empty('No change recorded.'));
  const head = h(
    'thead',
    null,
    h(
      'tr',
      null,
      ['When', 'Action', 'By', 'Status', 'Commit'].map((c) => h('th', { scope: 'col' }, c)),
    ),
  );
  return section(
    'changelog',
    'Changelog',
    h('div', { class: 'table-scroll' }, h('table', { class: 'changelog' }, head, h('tbody', null, log.map(logRow)))),
  );
}

export function subtasksSection(children: ListedTask[]): HTMLElement | null {
  if (!children.length) return null;
  return section(
    'subtasks',
    'Subtasks',
    h(
      'ul',
      { class: 'rows' },
      children.map((c) =>
        h(
          'li',
          null,
          h(
            'a',
            { class: 'task-row', href: `/tasks/${encodeURIComponent(c.id)}`, 'data-task': c.id },
            h('span', { class: 'row-main' }, h('span', { class: 'goal' }, c.goal)),
            h('span', { class: 'row-side' }, statusBadge(c.status), h('code', { class: 'id' }, c.id)),
          ),
        ),
      ),
    ),
  );
}
