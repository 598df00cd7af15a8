import type { TaskView, TurnView, ChangeView } from '../model/fold.js';
import type { ListedTask } from '../ops/query.js';
import { ago, indent, shortTime, table, truncate } from './format.js';

// Text renderings of tasks. JSON output never passes through here.

export function renderList(rows: ListedTask[]): string {
  if (rows.length === 0) return 'no tasks (lazy create "<goal>" adds one; --all includes finished ones)';
  const now = Date.now();
  return table(
    ['ID', 'STATUS', 'UPDATED', 'TAGS', 'GOAL'],
    rows.map((r) => [r.id, r.status, ago(r.updated_at, now), truncate(r.tags.join(','), 24), r.goal]),
  );
}

const who = (actor: string, person: { name: string } | null) => (person && actor !== 'system' && actor !== 'agent' ? `${person.name} (${actor})` : actor);

function turnLine(t: TurnView): string {
  const mark = t.feedback === 'pending' ? ' [feedback pending]' : t.feedback === 'consumed' ? ' [feedback delivered]' : '';
  const head = `#${t.sequence} ${t.role}/${t.kind} · ${who(t.actor, t.person)} · ${shortTime(t.timestamp)}${mark}`;
  return `${head}\n${indent(t.content.trimEnd() || '(empty)', 4)}`;
}

function changeLine(c: ChangeView): string {
  const aside = c.set_aside ? '  [set aside: concurrent change]' : '';
  return `${shortTime(c.timestamp)}  ${(c.from ?? '∅').padEnd(11)} → ${c.status.padEnd(11)} ${c.trigger.padEnd(14)} ${who(c.actor, c.person)}${c.reason ? ` — ${truncate(c.reason, 80)}` : ''}${aside}`;
}

export function renderShow(v: TaskView): string {
  const lines: string[] = [];
  lines.push(`${v.id}  ${v.goal}`);
  lines.push(`status:    ${v.status}${v.category ? ` (${v.category})` : ''}`);
  lines.push(`actions:   ${v.available_actions.join(', ') || 'none'}`);
  if (v.tags.length) lines.push(`tags:      ${v.tags.join(', ')}`);
  if (v.parent) lines.push(`parent:    ${v.parent}`);
  if (v.base) lines.push(`base:      ${v.base}`);
  if (v.agent) lines.push(`agent:     ${v.agent}`);
  lines.push(`created:   ${shortTime(v.created_at)} by ${who(v.created_by.actor, v.created_by)}`);
  if (v.consecutive_interruptions) lines.push(`crashes:   ${v.consecutive_interruptions} in a row`);
  if (v.concurrent_changes.length) {
    lines.push('', `concurrent change: ${v.concurrent_changes.length} status change(s) made on another clone were set aside by the merge:`);
    for (const c of v.concurrent_changes) lines.push(`  ${c.from ?? '∅'} → ${c.status} by ${who(c.actor, c.person)} at ${shortTime(c.timestamp)}${c.host ? ` on ${c.host}` : ''}`);
  }
  if (v.prompt) lines.push('', 'Prompt', indent(v.prompt.trimEnd()));
  if (v.acceptance.length) lines.push('', 'Acceptance criteria', ...v.acceptance.map((a) => `  - ${a}`));
  lines.push('', `Turns (${v.turns.length})`);
  lines.push(v.turns.length ? indent(v.turns.map(turnLine).join('\n')) : '  none yet');
  lines.push('', 'Changelog', indent(v.changelog.map(changeLine).join('\n')));
  return lines.join('\n');
}

export function renderCreated(v: TaskView): string {
  return v.id;
}

export function renderTransition(v: TaskView): string {
  const last = v.changelog.filter((c) => !c.set_aside).at(-1);
  return `${v.id}: ${last?.from ?? '∅'} → ${v.status}`;
}
