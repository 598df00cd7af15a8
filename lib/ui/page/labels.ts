import { h, relative } from './dom.js';
import type { Attention, Schedule, Substate, Usage } from './types.js';

// The small labels the board and the task page share, worded as the CLI words them (lib/agents/substate.ts).

/** The status as a badge; its class colours it (status-working, status-blocked, …). */
export const statusBadge = (status: string) =>
  h('span', { class: `badge status-${status}`, 'data-status': status }, status);

/** What a working turn is doing: the server's text when it gives one, else the CLI's wording. */
export function substateText(s: Substate | null | undefined): string | null {
  if (!s) return null;
  if (s.text) return s.text;
  if (s.kind === 'agent') return `agent: ${s.message ?? ''}`;
  if (s.kind === 'waiting_on')
    return `waiting on subtask ${s.task ?? '?'}${s.since ? ` since ${relative(s.since)}` : ''}`;
  if (s.kind === 'retrying') {
    const due = s.until ? `, next ${relative(s.until)}` : '';
    return `retrying: ${s.reason ?? 'error'}, attempt ${s.attempt ?? '?'}${due}`;
  }
  return s.message ?? s.kind;
}

export const attentionText = (a: Attention | null | undefined) => (a ? `${a.kind}: ${a.reason}` : null);

/** Where a task stands in the queue: its priority, paused, not before a time. */
export function scheduleText(s: Schedule | undefined): string | null {
  if (!s) return null;
  const parts = [];
  if (s.queued) parts.push(`queued, priority ${s.priority}`);
  if (s.paused) parts.push('paused');
  if (s.not_before) parts.push(`not before ${relative(s.not_before)}`);
  return parts.length ? parts.join(', ') : null;
}

export function tagList(tags: string[] | undefined) {
  if (!tags?.length) return null;
  return h('span', { class: 'tags' }, ...tags.map((t) => h('span', { class: 'tag' }, t)));
}

const num = (n: number | undefined) => (n ?? 0).toLocaleString('en');

/** Tokens in and out (with cache reads and writes) and the cost when the agent reported one. */
export function usageText(u: Usage | undefined | null): string | null {
  if (!u) return null;
  const total = (u.input_tokens ?? 0) + (u.output_tokens ?? 0) + (u.cache_read_input_tokens ?? 0);
  if (total === 0 && !u.cost_usd) return null;
  const cache = u.cache_read_input_tokens || u.cache_creation_input_tokens;
  const parts = [`${num(u.input_tokens)} in`, `${num(u.output_tokens)} out`];
  if (cache)
    parts.push(`${num(u.cache_read_input_tokens)} cache read`, `${num(u.cache_creation_input_tokens)} cache write`);
  if (typeof u.cost_usd === 'number') parts.push(`$${u.cost_usd.toFixed(u.cost_usd < 1 ? 4 : 2)}`);
  return parts.join(' · ');
}
