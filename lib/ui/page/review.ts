import { empty, h, section, short, when } from './dom.js';
import { usageText } from './labels.js';
import type { TaskView, Turn, TurnDetails } from './types.js';

// The review package: what the agent's latest result says of its work (summary, changed files, the commands it
// ran with their exit codes, the risks it names) and what the task has cost so far.

/** The agent's latest turn that carries a result's details. */
export function latestResult(t: TaskView): Turn | null {
  const turns = t.turns ?? [];
  for (let i = turns.length - 1; i >= 0; i--) {
    const turn = turns[i]!;
    if (turn.role === 'agent' && turn.details && (turn.details.summary || turn.details.review)) return turn;
  }
  return null;
}

function dl(...pairs: [string, Node | string | null | undefined][]): HTMLElement {
  return h(
    'dl',
    { class: 'facts' },
    pairs
      .filter(([, v]) => v !== null && v !== undefined && v !== '')
      .map(([k, v]) => [h('dt', null, k), h('dd', null, v)]),
  );
}

function commandList(d: TurnDetails): HTMLElement {
  const cmds = d.commands ?? [];
  if (!cmds.length) return empty('No command reported.');
  return h(
    'ul',
    { class: 'commands' },
    cmds.map((c) => {
      const ok = c.exit_code === 0;
      const label = c.exit_code === null || c.exit_code === undefined ? 'no exit code' : `exit ${c.exit_code}`;
      return h(
        'li',
        { class: ok ? 'cmd ok' : 'cmd fail', 'data-exit-code': c.exit_code ?? '' },
        h('span', { class: `exit ${ok ? 'ok' : 'fail'}` }, ok ? 'ok' : label),
        h('code', { class: 'cmdline' }, c.command),
      );
    }),
  );
}

/** What people ran on this work (lazy run), apart from the agent's: who, when, and how it ended. */
function peopleCommands(t: TaskView): HTMLElement[] {
  const cmds = t.reviewer_commands ?? [];
  if (!cmds.length) return [];
  const items = cmds.map((c) => {
    const ok = c.exit_code === 0;
    const label = c.exit_code !== null ? `exit ${c.exit_code}` : (c.signal ?? 'no exit code');
    return h(
      'li',
      { class: ok ? 'cmd ok' : 'cmd fail', 'data-exit-code': c.exit_code ?? '' },
      h('span', { class: `exit ${ok ? 'ok' : 'fail'}` }, ok ? 'ok' : label),
      h('code', { class: 'cmdline' }, c.command),
      h('span', { class: 'who' }, ' by ', c.person ?? c.actor, ' ', when(c.at)),
    );
  });
  return [h('h3', null, 'Commands run by people'), h('ul', { class: 'commands people' }, items)];
}

function risksList(d: TurnDetails): HTMLElement {
  const risks = d.risks ?? [];
  if (!risks.length) return empty('No risk reported.');
  return h(
    'ul',
    { class: 'risks' },
    risks.map((r) => h('li', null, r)),
  );
}

function filesList(d: TurnDetails): HTMLElement | null {
  const files = d.review?.changed_files ?? [];
  if (!files.length) return null;
  return h(
    'ul',
    { class: 'changed-files' },
    files.map((f) => h('li', null, h('code', null, f))),
  );
}

export function reviewSection(t: TaskView): HTMLElement {
  const turn = latestResult(t);
  const total = usageText(t.usage);
  if (!turn?.details)
    return section('review', 'Review', empty('No agent result yet.'), total ? dl(['Usage (task)', total]) : null);
  const d = turn.details;
  const r = d.review;
  return section(
    'review',
    'Review',
    h(
      'p',
      { class: 'review-when' },
      'From the agent’s result ',
      when(turn.timestamp),
      d.outcome ? ` (${d.outcome})` : '',
    ),
    d.summary ? h('p', { class: 'summary prose' }, d.summary) : null,
    dl(
      ['Head', r?.head ? h('code', null, short(r.head)) : null],
      ['Commits', r?.commits !== undefined ? String(r.commits) : null],
      ['Usage (turn)', usageText(d.usage)],
      ['Usage (task)', total],
    ),
    r?.diffstat ? h('pre', { class: 'diffstat' }, r.diffstat) : null,
    h('h3', null, 'Changed files'),
    filesList(d) ?? empty('No file changed.'),
    h('h3', null, 'Commands run'),
    commandList(d),
    peopleCommands(t),
    h('h3', null, 'Risks'),
    risksList(d),
  );
}
