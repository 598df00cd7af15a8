import type { Actor } from '../core/actor.js';
import { STATUSES, TERMINAL, type Status } from './status.js';
import { notAllowed } from '../core/errors.js';
import { shortHash } from '../core/hash.js';
import { ACTIONS, type Action, type Trigger } from './triggers.js';
import { isReviewTurn, UNREVIEWED } from './review.js';
import { heldCrash, type Attention } from './attention.js';
import { type ChangeView, type PendingViolation, type TurnView } from './views.js';
import type { Schedule } from './schedule.js';
import { lastSettled } from './rounds.js';

// The one transition table. Commands, reconcile, sync's merge replay and
// available_actions all read it; nothing else decides what may happen next.

export { ACTIONS, type Action, type Event, type Trigger } from './triggers.js';

interface Edge {
  from: Status;
  to: Status;
  on: readonly Trigger[];
}

const edge = (from: Status, to: Status, ...on: Trigger[]): Edge => ({ from, to, on });

export const EDGES: readonly Edge[] = [
  edge('backlog', 'working', 'start'),
  edge('backlog', 'abandoned', 'close'),
  // The fleet's queue (lib/model/schedule.ts): status-neutral entries, recorded in the changelog like any move.
  edge('backlog', 'backlog', 'queue', 'unqueue', 'pause', 'unpause'),
  // budget: a launch refused because the task spent its budget (lib/agents/budget.ts) leaves it for a person.
  edge('backlog', 'blocked', 'budget'),

  // stop: an ask is status-neutral, so stopping one returns the task to where it was.
  edge('working', 'blocked', 'turn_complete', 'turn_failed', 'clarify', 'stop', 'round_end'),
  edge('working', 'conflict', 'turn_complete', 'stop'),
  // usage_limit: a worker's turn hit the agent's usage limit; the task waits in the queue for its reset.
  edge('working', 'interrupted', 'turn_crashed', 'stop', 'usage_limit', 'round_end'),
  // round_end: a follow-up (from complete or abandoned) or a repair (from blocked or interrupted) is status-neutral:
  // its end, however it ends (a result, a failure, a crash, a stop, reconcile finding its supervisor dead), returns
  // the task where it was.
  edge('working', 'complete', 'round_end'),
  edge('working', 'abandoned', 'round_end'),

  edge('blocked', 'working', 'unblock', 'answer', 'ask', 'repair'),
  edge('blocked', 'blocked', 'budget'),
  edge('blocked', 'conflict', 'rederive'),
  edge('blocked', 'pairing', 'pair'),
  edge('blocked', 'merging', 'accept'),
  edge('blocked', 'abandoned', 'reject', 'close'),
  // submit hands the work to a forge; its outcome is read back from git (merged or closed upstream).
  edge('blocked', 'submitted', 'submit'),

  edge('submitted', 'working', 'unblock'),
  edge('submitted', 'merging', 'accept'),
  edge('submitted', 'complete', 'merge_done'),
  edge('submitted', 'blocked', 'pr_closed'),
  edge('submitted', 'abandoned', 'reject', 'close'),

  edge('conflict', 'working', 'unblock', 'ask'),
  // accept from conflict records a decision on every pending file first (→ blocked), then merges.
  edge('conflict', 'blocked', 'rederive', 'accept'),
  edge('conflict', 'pairing', 'pair'),
  edge('conflict', 'abandoned', 'reject', 'close'),

  edge('interrupted', 'working', 'auto_resume', 'resume', 'unblock', 'stale_response', 'repair'),
  // An auto-resume that cannot launch (its agent's program is gone) blocks with the reason.
  edge('interrupted', 'blocked', 'turn_failed', 'budget'),
  edge('interrupted', 'pairing', 'pair'),
  edge('interrupted', 'interrupted', 'queue', 'unqueue', 'pause', 'unpause'),
  edge('interrupted', 'abandoned', 'reject', 'close'),

  edge('pairing', 'blocked', 'pair_end', 'stale_pairing'),
  edge('pairing', 'conflict', 'pair_end', 'stale_pairing'),

  edge('merging', 'complete', 'accept', 'merge_done'),
  edge('merging', 'blocked', 'merge_abort'),
  edge('merging', 'conflict', 'merge_abort'),
  // An aborted accept restores the true prior status, submitted included.
  edge('merging', 'submitted', 'merge_abort'),

  // Any non-terminal status may become zombie (system only); zombie only completes.
  ...STATUSES.filter((s) => !TERMINAL.includes(s) && s !== 'zombie').map((s) => edge(s, 'zombie', 'zombie')),
  edge('zombie', 'complete', 'merge_done'),

  edge('complete', 'working', 'follow_up'),
  edge('abandoned', 'working', 'follow_up'),
  edge('complete', 'blocked', 'reopen'),
  edge('complete', 'backlog', 'reopen'),
  edge('abandoned', 'backlog', 'reopen'),
  edge('abandoned', 'blocked', 'reopen'),
];

/**
 * Actions that change no status, allowed while a task rests or an
 * agent or person works on it (not while an accept owns it).
 */
const NEUTRAL: readonly Action[] = ['comment', 'edit'];
const NEUTRAL_IN: readonly Status[] = STATUSES.filter(
  (s) => !TERMINAL.includes(s) && s !== 'merging' && s !== 'zombie',
);
/**
 * Status-neutral actions of one status: unblock on working queues feedback for the next turn;
 * submit on submitted pushes again and retries the PR command.
 */
const NEUTRAL_OF: Partial<Record<Status, readonly Action[]>> = { working: ['unblock'], submitted: ['submit'] };
/**
 * run: a person's command in the task's worktree, recorded as a turn; status-neutral in every status but while a turn
 * runs there (working), an accept owns the branch (merging) or the system does (zombie), and only once a turn made
 * the branch (guard branch_made: a never-started backlog task has none). A terminal task's branch may still hold its
 * work (a rejected one's does): a command on it is a record, not a move.
 */
const RUN_IN: readonly Status[] = STATUSES.filter((s) => s !== 'working' && s !== 'merging' && s !== 'zombie');

/** Actors allowed to cause a transition into a status; absent means anyone. */
const RESERVED: Partial<Record<Status, readonly Actor[]>> = { zombie: ['system'] };

export function canTransition(from: Status, to: Status, trigger?: Trigger, actor?: Actor): boolean {
  const reserved = RESERVED[to];
  if (reserved && actor && !reserved.includes(actor)) return false;
  return EDGES.some((e) => e.from === from && e.to === to && (trigger === undefined || e.on.includes(trigger)));
}

const ACTION_SET = new Set<string>(ACTIONS);

/** What a guard reads (a TaskView is one): the task's own history, never git's or this machine's state. */
export interface Guarded {
  status: Status;
  acceptance: readonly string[];
  attention: Attention | null;
  pending_violations: PendingViolation[];
  turns: TurnView[];
  changelog: ChangeView[];
  schedule: Schedule;
}

/** A condition an action needs beyond the status, and the one line that says why it is refused. */
export interface Guard {
  name: string;
  /**
   * Bumped whenever what `holds` decides changes (the functions it calls included): tableSignature keys derived
   * actions on it, and test/model/table.test.ts pins each revision's code, so a change without a bump fails there.
   */
  rev: number;
  /** The data a guard made by a factory decides with (criterion's `answering`): part of its identity. */
  of?: readonly (string | boolean)[];
  holds(v: Guarded): boolean;
  reason(v: Guarded): string;
  details?(v: Guarded): Record<string, unknown>;
}

const GUARDS: Partial<Record<Action, Guard>> = {
  answer: {
    name: 'decision_pending',
    rev: 1,
    holds: (v) => v.attention?.kind === 'decision',
    reason: (v) => `there is no pending decision to answer (its attention is ${v.attention?.kind ?? 'none'})`,
  },
  resume: {
    name: 'no_pending_violations',
    rev: 1,
    holds: (v) => v.pending_violations.length === 0,
    reason: (v) =>
      `resume cannot decide on protected files (${v.pending_violations.map((p) => p.file).join(', ')}); ` +
      `use lazy unblock with --approve-file/--revert-file`,
    details: (v) => ({ pending_files: v.pending_violations.map((p) => p.file) }),
  },
  queue: {
    name: 'runnable',
    rev: 2,
    holds: (v) => !runnableWhy(v),
    reason: runnableWhy,
  },
  unqueue: {
    name: 'queued',
    // rev 2 (issue 32): the schedule it reads looks past a follow-up's or a repair's round.
    rev: 2,
    holds: (v) => v.schedule.queued,
    reason: () => 'it is not queued',
  },
  pause: {
    name: 'not_paused',
    // rev 2 (issue 32): the schedule it reads looks past a follow-up's or a repair's round.
    rev: 2,
    holds: (v) => !v.schedule.paused && (v.schedule.queued || v.status === 'interrupted'),
    reason: (v) => (v.schedule.paused ? 'it is already paused' : 'only a queued or interrupted task can be paused'),
  },
  unpause: {
    name: 'paused',
    // rev 2 (issue 32): the schedule it reads looks past a follow-up's or a repair's round.
    rev: 2,
    holds: (v) => v.schedule.paused,
    reason: () => 'it is not paused',
  },
  accept: reviewed('accept merges'),
  submit: reviewed('submit hands over'),
};

/**
 * Guards that come before an action's own: a pending decision is answered (answer, or unblock, whose feedback is the
 * answer) or the task is closed; nothing runs an agent, pairs or hands work on until the task has a criterion.
 */
const FIRST: Partial<Record<Action, readonly Guard[]>> = {
  accept: [decided(), criterion(false)],
  submit: [decided(), criterion(false)],
  pair: [criterion(false)],
  ask: [criterion(false)],
  repair: [criterion(false)],
  resume: [criterion(false)],
  run: [branchMade('run')],
  follow_up: [branchMade('follow_up')],
  unblock: [criterion(true)],
  answer: [criterion(true)],
};

/** The guards of one action, in the order they are asked. */
function guardsOf(a: Action): readonly Guard[] {
  const own = GUARDS[a];
  return own ? [...(FIRST[a] ?? []), own] : (FIRST[a] ?? []);
}

/** run and a follow-up work on the task's branch, which only a turn or a pairing session ever made. */
function branchMade(action: 'run' | 'follow_up'): Guard {
  return {
    name: 'branch_made',
    rev: 1,
    of: [action],
    holds: (v) => v.changelog.some((c) => c.status === 'working' || c.status === 'pairing'),
    reason: () => `the task was never started: no turn made its branch, which ${action.replace('_', '-')} works on`,
  };
}

/** The agent's pending question (or the criterion question start asked) holds accept and submit. */
function decided(): Guard {
  return {
    name: 'no_pending_decision',
    rev: 1,
    holds: (v) => v.attention?.kind !== 'decision',
    reason: (v) =>
      `a decision is pending ("${v.attention?.reason ?? ''}"): answer it with lazy answer (or unblock), or close the task`,
    details: (v) => ({ decision: v.attention?.reason ?? '' }),
  };
}

const hasCriterion = (v: Guarded): boolean => v.acceptance.some((a) => a.trim());

/** `answering`: the action's text may be the answer to start's criterion question, which becomes the criterion. */
function criterion(answering: boolean): Guard {
  return {
    name: 'criterion',
    rev: 2,
    of: [answering],
    // merging: an accept already under way is finished or rolled back whatever the task holds.
    holds: (v) =>
      hasCriterion(v) ||
      v.status === 'merging' ||
      (answering && v.status === 'blocked' && lastSettled(v)?.trigger === 'clarify'),
    reason: () =>
      'the task has no acceptance criterion, and nothing runs an agent, pairs or accepts without one: ' +
      'answer its question with lazy answer, or add one with lazy edit --accept',
  };
}

const NONE = { trigger: '', details: null };

/**
 * Why no worker could run the task if it were queued ('' when one could): what a turn is judged by, or what a
 * resume needs.
 */
function runnableWhy(v: Guarded): string {
  if (!hasCriterion(v))
    return 'a worker runs a task only with an acceptance criterion to judge its turn by; add one with lazy edit --accept';
  if (v.status !== 'interrupted') return '';
  if (v.pending_violations.length)
    return (
      `no worker resumes a task with protected files to decide (${v.pending_violations.map((p) => p.file).join(', ')}); ` +
      'use lazy unblock with --approve-file/--revert-file'
    );
  return heldCrash(lastSettled(v) ?? NONE) ?? ''; // a crash a repair found held stays held
}

/** accept and submit both hand on reviewed work: the one guard, worded for each. */
function reviewed(what: string): Guard {
  return {
    name: 'reviewed',
    rev: 2,
    holds: reviewedWork,
    reason: () =>
      `${what} reviewed work, and no work turn or pairing session ` +
      'since the task was created or last accepted left a review ' +
      '(a failed turn leaves none); unblock it for a turn that does',
  };
}

/**
 * The latest work on the branch (an agent work turn or a pairing session) since the last accept left a review.
 * An ask changes nothing and a repair decides nothing: neither is the work a person reviews.
 */
function reviewedWork(v: Guarded): boolean {
  const accepted = v.changelog.reduce(
    // A follow-up's return to complete is no accept: the work it left is what a reopen lands.
    (m, c) => (!c.set_aside && c.status === 'complete' && c.trigger !== 'round_end' && c.clock > m ? c.clock : m),
    -1,
  );
  for (let i = v.turns.length - 1; i >= 0 && v.turns[i]!.clock > accepted; i--) {
    const t = v.turns[i]!;
    if ((t.role === 'agent' && !UNREVIEWED.has(String(t.details?.mode))) || t.kind === 'pair') return isReviewTurn(t);
  }
  return false;
}

const actionsByStatus = new Map<Status, Action[]>();

/** The actions a status's edges allow, before guards (computed once per status; shared, never mutate). */
export function statusActions(status: Status): Action[] {
  let list = actionsByStatus.get(status);
  if (!list) {
    const out = new Set<Action>();
    for (const e of EDGES) if (e.from === status) for (const t of e.on) if (ACTION_SET.has(t)) out.add(t as Action);
    if (NEUTRAL_IN.includes(status)) for (const a of NEUTRAL) out.add(a);
    for (const a of NEUTRAL_OF[status] ?? []) out.add(a);
    if (RUN_IN.includes(status)) out.add('run');
    list = ACTIONS.filter((a) => out.has(a));
    actionsByStatus.set(status, list);
  }
  return list;
}

/**
 * available_actions: the status's actions whose guard holds. A status with no guarded action shares its memoized list.
 */
export function availableActions(v: Guarded): Action[] {
  const list = statusActions(v.status);
  return list.some((a) => guardsOf(a).length) ? list.filter((a) => guardsOf(a).every((g) => g.holds(v))) : list;
}

/**
 * Throws the exit-4 error when an action is not available: the same test available_actions makes.
 * Invariant: every action asks it before taking the task's lock (allowedTaskArg in lib/ops/resolve.ts) and again under it,
 * but accept, which waits out an accept in progress to report it (the actions walk's merging case holds that lock).
 */
export function assertAllowed(action: Action, v: Guarded, message?: string): void {
  if (!statusActions(v.status).includes(action)) throw notAllowed(action, v.status, availableActions(v), message);
  const g = guardsOf(action).find((x) => !x.holds(v));
  if (g) {
    throw notAllowed(
      action,
      v.status,
      availableActions(v),
      message ?? `cannot ${action} a task that is ${v.status}: ${g.reason(v)}`,
      { guard: g.name, ...g.details?.(v) },
    );
  }
}

declare const LAZY_TABLE_SIGNATURE: string | undefined;

/**
 * Changes whenever the table or a guard does: caches of derived actions (the listing index stores available_actions
 * as a bit mask over ACTIONS) key on it. Built from data only, the actions' order, the edges, the neutral actions and
 * each guard's name, revision and makings, never from code text: every bundle, minified or not, and the TypeScript
 * sources give one signature, so the CLI and the MCP server read and write one index. `edges` is for tests.
 */
export function tableSignature(edges: readonly Edge[] = EDGES): string {
  // The bundles carry it, computed by the build from this same function (scripts/build.mjs): every command needs it.
  if (edges === EDGES && typeof LAZY_TABLE_SIGNATURE === 'string') return LAZY_TABLE_SIGNATURE;
  const guards = ACTIONS.map((a) => [a, guardsOf(a).map((g) => [g.name, g.rev, g.of ?? []])]);
  return shortHash(JSON.stringify([ACTIONS, edges, NEUTRAL, NEUTRAL_IN, NEUTRAL_OF, RUN_IN, guards]));
}

/** The guards of one action, in the order they are asked (the test that pins each revision's code reads them). */
export const actionGuards: (a: Action) => readonly Guard[] = guardsOf;
