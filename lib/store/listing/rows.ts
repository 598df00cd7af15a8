import type { LazyError } from '../../core/errors.js';
import { lastChange, type TaskView } from '../../model/fold.js';
import type { Status } from '../../model/status.js';
import { ACTIONS, type Action } from '../../model/table.js';
import { NO_SCHEDULE, type Schedule } from '../../model/schedule.js';
import { taskUsage, turnSpends, type TurnSpend, type UsageTotals } from '../../model/usage.js';

// The listing index's rows: what each task contributes, and the compact tuple a base line stores.

/** What the table, the filters and the inbox need of every task. */
export type LeanRow = Pick<
  TaskView,
  | 'id'
  | 'tip'
  | 'status'
  | 'created_at'
  | 'updated_at'
  | 'goal'
  | 'tags'
  | 'parent'
  | 'attention'
  | 'current_run'
  | 'available_actions'
  | 'schedule'
>;
export type Detail = Pick<
  TaskView,
  'tip' | 'agent' | 'base' | 'acceptance' | 'created_by' | 'consecutive_interruptions' | 'revisions' | 'merging_owner'
> & {
  /** The pull request a submit recorded (the task's `submission.url`), null when none. */
  pr_url: string | null;
  /** Token usage summed over the task's agent turns (taskUsage), cost where the agent reported one. */
  usage: UsageTotals;
  /** Kept for --search only: listed rows never carry it. */
  prompt: string | null;
  /** Each agent turn's usage, model, cost and agent time, for `lazy usage`: listed rows never carry it. */
  spend: TurnSpend[];
  /** What the reading surfaces fold into available_actions beyond the table (lib/ops/situated.ts). */
  facts: RowFacts;
};

/** A listed task's facts lib/ops/situated.ts reads; a row carries them under FACTS, which its JSON leaves out. */
export interface RowFacts {
  /** Where the latest turn ran: the last move into working's host and clone. */
  worked: { host: string; clone: string | null } | null;
  session_open: boolean;
  /** Protected files wait for a decision. */
  pending: boolean;
  reviewed_head: string | null;
}
export const FACTS = Symbol('lazy.row-facts');

export function factsOf(v: TaskView): RowFacts {
  const w = lastChange(v, 'working');
  return {
    worked: w?.host ? { host: w.host, clone: w.clone } : null,
    session_open: !!v.session && v.session.ended_at === null,
    pending: v.pending_violations.length > 0,
    reviewed_head: v.reviewed_head,
  };
}
/** A listed task: the task object without its prompt, turns, changelog and session records. */
export type Row = LeanRow & Omit<Detail, 'tip' | 'prompt' | 'facts' | 'spend'> & { [FACTS]?: RowFacts };
export interface BadRow {
  id: string;
  tip: string;
  error: { code: string; message: string; details: Record<string, unknown> };
}

export type Tuple = [
  string,
  string,
  Status,
  string,
  string,
  string,
  string[],
  string | null,
  TaskView['attention'],
  string | null,
  number,
  // The queue (queued, priority, paused, a usage-limit wait, a claim); null for a task never queued.
  Schedule | null,
];

export const toTuple = (v: LeanRow): Tuple => [
  v.id,
  v.tip,
  v.status,
  v.created_at,
  v.updated_at,
  v.goal,
  v.tags,
  v.parent,
  v.attention,
  v.current_run,
  maskOf(v.available_actions),
  isPlain(v.schedule) ? null : v.schedule,
];
export const fromTuple = (t: Tuple): LeanRow => ({
  id: t[0],
  tip: t[1],
  status: t[2],
  created_at: t[3],
  updated_at: t[4],
  goal: t[5],
  tags: t[6],
  parent: t[7],
  attention: t[8],
  current_run: t[9],
  available_actions: actionsOf(t[10]),
  schedule: t[11] ?? NO_SCHEDULE,
});

const isPlain = (s: Schedule) =>
  !s.queued && !s.paused && s.priority === 0 && s.not_before === null && s.claim === null;

const maskOf = (actions: readonly Action[]) => actions.reduce((m, a) => m | (1 << ACTIONS.indexOf(a)), 0);
const byMask = new Map<number, Action[]>();
/** A handful of masks occur in practice: each decodes once into a shared list (never mutated). */
function actionsOf(mask: number): Action[] {
  let list = byMask.get(mask);
  if (!list) byMask.set(mask, (list = ACTIONS.filter((_, i) => mask & (1 << i))));
  return list;
}
export const toDetail = (v: TaskView): Detail => ({
  tip: v.tip,
  agent: v.agent,
  base: v.base,
  acceptance: v.acceptance,
  created_by: v.created_by,
  consecutive_interruptions: v.consecutive_interruptions,
  revisions: v.revisions,
  merging_owner: v.merging_owner,
  pr_url: v.submission?.url ?? null,
  usage: taskUsage(v.turns),
  prompt: v.prompt,
  spend: turnSpends(v.turns, v.changelog),
  facts: factsOf(v),
});

/** A row as its tuple stores it (the index keeps no more than this of a fold). */
export const leanOf = (v: LeanRow): LeanRow => fromTuple(toTuple(v));
// The facts ride under a symbol: JSON.stringify leaves it out, so list --json prints the row as documented.
export const asRow = ({ tip: _t, prompt: _p, spend: _s, facts, ...rest }: Detail) =>
  Object.assign(rest, { [FACTS]: facts });

/** Rows whose status cell depends on the moment or on this machine (a running turn, a place in the queue). */
export const isLive = (r: LeanRow) => r.status === 'working' || !isPlain(r.schedule);

/** A task that could not be read, as the index keeps it: its tip and the error, so list warns and skips it. */
export const badRow = (r: { id: string; tip: string }, e: LazyError): BadRow => ({
  id: r.id,
  tip: r.tip,
  error: { code: e.code, message: e.message, details: e.details },
});
