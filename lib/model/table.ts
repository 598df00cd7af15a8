import type { Actor } from '../core/actor.js';
import { STATUSES, TERMINAL, type Status } from './status.js';
import { notAllowed } from '../core/errors.js';

// The one transition table. Commands, reconcile, sync's merge replay and
// available_actions all read it; nothing else decides what may happen next.

/** What a human (or builder/agent) can ask for. */
export const ACTIONS = [
  'start', 'unblock', 'answer', 'resume', 'ask', 'stop', 'pair',
  'accept', 'reject', 'close', 'reopen', 'comment', 'edit',
] as const;
export type Action = (typeof ACTIONS)[number];

/** What the system does on its own. */
export type Event =
  | 'turn_complete' | 'turn_failed' | 'turn_crashed' | 'clarify' | 'auto_resume' | 'stale_response'
  | 'pair_end' | 'stale_pairing' | 'rederive' | 'merge_done' | 'merge_abort' | 'migrate' | 'zombie';
export type Trigger = Action | Event;

interface Edge { from: Status; to: Status; on: readonly Trigger[] }

const edge = (from: Status, to: Status, ...on: Trigger[]): Edge => ({ from, to, on });

export const EDGES: readonly Edge[] = [
  edge('backlog', 'working', 'start'),
  edge('backlog', 'abandoned', 'close'),

  edge('working', 'blocked', 'turn_complete', 'turn_failed', 'clarify'),
  edge('working', 'conflict', 'turn_complete'),
  edge('working', 'interrupted', 'turn_crashed', 'stop'),

  edge('blocked', 'working', 'unblock', 'answer', 'ask'),
  edge('blocked', 'conflict', 'rederive'),
  edge('blocked', 'pairing', 'pair'),
  edge('blocked', 'merging', 'accept'),
  edge('blocked', 'abandoned', 'reject', 'close'),
  edge('blocked', 'backlog', 'migrate'),

  edge('conflict', 'working', 'unblock', 'ask'),
  edge('conflict', 'blocked', 'rederive'),
  edge('conflict', 'pairing', 'pair'),
  edge('conflict', 'abandoned', 'reject', 'close'),

  edge('interrupted', 'working', 'auto_resume', 'resume', 'unblock', 'stale_response'),
  edge('interrupted', 'pairing', 'pair'),
  edge('interrupted', 'abandoned', 'reject', 'close'),

  edge('pairing', 'blocked', 'pair_end', 'stale_pairing'),
  edge('pairing', 'conflict', 'pair_end', 'stale_pairing'),

  edge('merging', 'complete', 'accept', 'merge_done'),
  edge('merging', 'blocked', 'merge_abort'),
  edge('merging', 'conflict', 'merge_abort'),

  // Any non-terminal status may become zombie (system only); zombie only completes.
  ...STATUSES.filter((s) => !TERMINAL.includes(s) && s !== 'zombie').map((s) => edge(s, 'zombie', 'zombie')),
  edge('zombie', 'complete', 'merge_done'),

  edge('complete', 'blocked', 'reopen'),
  edge('complete', 'backlog', 'reopen'),
  edge('abandoned', 'backlog', 'reopen'),
  edge('abandoned', 'blocked', 'reopen'),
];

/** Actions that change no status, allowed while a task is not terminal. */
const NEUTRAL: readonly Action[] = ['comment', 'edit'];
/** Status-neutral actions of one status: unblock on working queues feedback for the next turn. */
const NEUTRAL_IN: Partial<Record<Status, readonly Action[]>> = { working: ['unblock'] };

/** Actors allowed to cause a transition into a status; absent means anyone. */
const RESERVED: Partial<Record<Status, readonly Actor[]>> = { zombie: ['system'] };

export function canTransition(from: Status, to: Status, trigger?: Trigger, actor?: Actor): boolean {
  const reserved = RESERVED[to];
  if (reserved && actor && !reserved.includes(actor)) return false;
  return EDGES.some((e) => e.from === from && e.to === to && (trigger === undefined || e.on.includes(trigger)));
}

const ACTION_SET = new Set<string>(ACTIONS);

const actionsByStatus = new Map<Status, Action[]>();

/** available_actions: derived from EDGES, in ACTIONS order (computed once per status; shared, never mutate). */
export function availableActions(status: Status): Action[] {
  let list = actionsByStatus.get(status);
  if (!list) {
    const out = new Set<Action>();
    for (const e of EDGES) if (e.from === status) for (const t of e.on) if (ACTION_SET.has(t)) out.add(t as Action);
    if (!TERMINAL.includes(status)) for (const a of NEUTRAL) out.add(a);
    for (const a of NEUTRAL_IN[status] ?? []) out.add(a);
    list = ACTIONS.filter((a) => out.has(a));
    actionsByStatus.set(status, list);
  }
  return list;
}

/** Throws the exit-4 error when an action is not allowed from a status. */
export function assertAllowed(action: Action, status: Status, message?: string): void {
  if (!availableActions(status).includes(action)) throw notAllowed(action, status, availableActions(status), message);
}
