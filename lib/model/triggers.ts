// What may move a task: the actions people (or builders and agents) ask for and the events
// the system raises. The vocabulary of the transition table (table.ts), apart from it so the
// documents that record a trigger (docs.ts) need not import the table.

/** What a human (or builder/agent) can ask for. */
export const ACTIONS = [
  'start',
  'queue',
  'unqueue',
  'pause',
  'unpause',
  'unblock',
  'answer',
  'resume',
  'ask',
  'follow_up',
  'repair',
  'stop',
  'pair',
  'accept',
  'submit',
  'reject',
  'close',
  'reopen',
  'comment',
  'edit',
  'run',
] as const;
export type Action = (typeof ACTIONS)[number];

/** What the system does on its own. */
export type Event =
  | 'turn_complete'
  | 'turn_failed'
  | 'turn_crashed'
  | 'usage_limit'
  | 'clarify'
  | 'auto_resume'
  | 'stale_response'
  | 'pair_end'
  | 'stale_pairing'
  | 'rederive'
  | 'merge_done'
  | 'merge_abort'
  | 'pr_closed'
  | 'budget'
  | 'zombie'
  // A follow-up or repair round ended, however it ended: the task is back where the round found it.
  | 'round_end';
export type Trigger = Action | Event;
