import type { Json } from '../core/json.js';
import type { Status } from './status.js';
import type { Trigger } from './triggers.js';
import type { TurnKind } from './docs.js';

// The facts a status change or a turn records beyond its fixed fields (`details`), typed by the
// entry's trigger (status changes) or kind (turns), and the accessors every layer above reads them
// through: the one place that knows their keys. schemas/status-change.schema.json and
// schemas/turn.schema.json type the same keys (validated on write and on read) and tolerate
// unknown ones: a teammate on a newer release may push entries this release merges (lib/sync).

type Obj = { [k: string]: Json };
/** A stored details bag as a document or a view holds it. */
type Bag = Obj | null | undefined;

/** A fleet worker's claim, stamped on the move into working. */
export type ClaimDetails = { host: string; clone?: string; lease_until: string };
/** The move into working (start, answer, unblock, resume, auto_resume): the worker's claim, if one launched it. */
export type LaunchDetails = { claim?: ClaimDetails };
/** accept's first step: the task is merging into `target`; `restore` is where a rollback returns it. */
export type MergingDetails = { restore: Status; target: string; target_old: string; owner: Obj };
/** The move into complete (accept, merge_done): what landed where, and who found it when lazy did not merge it. */
export type LandedDetails = {
  target: string;
  commit?: string;
  head?: string;
  /** A merge lazy found afterwards: 'late accept', 'merged-branch sweep'. */
  by?: string;
  how?: string;
  remote?: string;
};
/** merge_abort: the accept rolled back; `squash` is the commit a killed move may still land. */
export type AbortDetails = { target: string; target_old?: string; if_killed: string; squash?: string };
/** submit: what was pushed where; target_tip is null when the remote's target was not known. */
export type SubmitDetails = {
  remote: string;
  branch: string;
  target: string;
  head: string;
  target_tip?: string | null;
};
export type PrClosedDetails = { remote: string; branch: string };
export type ScheduleDetails = { priority?: number };
export type ClaimBroken = { host: string | null; run: string | null; lease?: string; until?: string | null };
export type LeaseExpired = { host: string; run: string; until: string };
/** The move into interrupted (stop, turn_crashed, usage_limit): how the turn ended. */
export type InterruptDetails = {
  reason?: string;
  exit_code?: number | null;
  signal?: string | null;
  logs?: string[];
  at?: string;
  not_before?: string;
  user_stopped?: boolean;
  claim_unkept?: boolean;
  upstream_conflict?: string[];
  claim_broken?: ClaimBroken;
  lease_expired?: LeaseExpired;
  /** lazy doctor ended a turn whose process was gone. */
  held?: string;
};
export type FailedDetails = { failure_class: string; attempts?: number };

/** Status-change details, one shape per trigger that writes any. */
export interface ChangeDetailsByTrigger {
  start: LaunchDetails;
  answer: LaunchDetails;
  unblock: LaunchDetails;
  resume: LaunchDetails;
  auto_resume: LaunchDetails;
  follow_up: LaunchDetails;
  repair: LaunchDetails;
  /** A round's end carries the details of the move that had left the task where the round found it. */
  round_end: Obj;
  accept: MergingDetails | LandedDetails;
  merge_done: LandedDetails;
  merge_abort: AbortDetails;
  submit: SubmitDetails;
  pr_closed: PrClosedDetails;
  queue: ScheduleDetails;
  unqueue: ScheduleDetails;
  pause: ScheduleDetails;
  unpause: ScheduleDetails;
  stop: InterruptDetails;
  turn_crashed: InterruptDetails;
  usage_limit: InterruptDetails;
  turn_failed: FailedDetails;
}
export type DetailedTrigger = keyof ChangeDetailsByTrigger;
/** What a transition by `T` may record. */
export type ChangeDetailsOf<T extends Trigger | 'create'> = T extends DetailedTrigger
  ? ChangeDetailsByTrigger[T]
  : never;
/** A status change's details, discriminated by its trigger. */
export type TypedChange = {
  [T in DetailedTrigger]: { trigger: T; details: ChangeDetailsByTrigger[T] };
}[DetailedTrigger];

export type ReviewDetails = {
  head: string;
  base_commit: string;
  commits: number;
  changed_files: string[];
  diffstat: string;
  auto_commit: string | null;
};
export type SetAsideDetails = {
  stash: string | null;
  ref: string | null;
  message: string;
  files: string[];
  note: string;
};
/** An agent turn (result, question, error): the outcome of its run. */
export type AgentTurnDetails = {
  outcome?: string;
  /** The run's kind: 'ask' for a read-only question, 'repair' (neither is a review), 'follow_up', 'work'. */
  mode?: string;
  agent?: string;
  /** The model the run was launched with (the task's, else the agent's configured one); absent: the CLI's default. */
  model?: string;
  attempts?: number;
  summary?: string;
  question?: string;
  risks?: string[];
  /** `output`: the tail of a follow-up --command's output. */
  commands?: { command: string; exit_code: number | null; output?: string }[];
  failure_class?: string;
  failure_reason?: string;
  exit_code?: number | null;
  signal?: string | null;
  agent_session_id?: string;
  usage?: Obj;
  usage_cumulative?: Obj;
  cost_usd?: number;
  /** Seconds of the turn spent waiting on a subtask (lazy_wait, lazy_ask on one): not the agent's time (lazy usage). */
  waited_seconds?: number;
  review?: ReviewDetails;
  upstream?: { status: string; detail: string; files: string[] };
  set_aside?: SetAsideDetails;
};
/** A pairing session's end: the review of what it left. */
export type PairDetails = { review?: ReviewDetails };
/** A hand-off to a forge: what was pushed and what the PR command said. */
export type SubmissionDetails = {
  remote: string;
  branch: string;
  head: string;
  command?: string;
  exit_code?: number;
  url?: string;
  error?: string;
};
/**
 * lazy run: a person's command in the task's worktree. `exit_code` is null when a signal ended it; `output_tail` is
 * the end of its output (stdout and stderr as they came), bounded and made printable (lib/ops/run.ts).
 */
export type CommandDetails = {
  command: string;
  exit_code: number | null;
  signal: string | null;
  duration_ms: number;
  /** The worktree's HEAD the command ran on. */
  head: string;
  output_tail: string;
  /** The whole output's size, of which the tail is the end. */
  output_bytes: number;
};
export interface TurnDetailsByKind {
  result: AgentTurnDetails;
  question: AgentTurnDetails;
  error: AgentTurnDetails;
  pair: PairDetails;
  submission: SubmissionDetails;
  command: CommandDetails;
}
export type DetailedKind = keyof TurnDetailsByKind;
export type TurnDetailsOf<K extends TurnKind> = K extends DetailedKind ? TurnDetailsByKind[K] : never;
/** A turn's details, discriminated by its kind. */
export type TypedTurn = { [K in DetailedKind]: { kind: K; details: TurnDetailsByKind[K] } }[DetailedKind];

type ChangeLike = { trigger: string; details?: Bag };
type TurnLike = { kind: string; details?: Bag };

const str = (x: Json | undefined): string | null => (typeof x === 'string' ? x : null);
const obj = (x: Json | undefined): Obj | null => (x && typeof x === 'object' && !Array.isArray(x) ? x : null);

/** A status change's details as its trigger types them (empty when it recorded none). */
export function changeDetails<T extends DetailedTrigger>(
  c: ChangeLike & { trigger: T },
): Partial<ChangeDetailsByTrigger[T]>;
export function changeDetails(c: ChangeLike): Partial<TypedChange['details']>;
export function changeDetails(c: ChangeLike): Obj {
  return c.details ?? {};
}

/** A turn's details as its kind types them (empty when it recorded none). */
export function turnDetails<K extends DetailedKind>(t: TurnLike & { kind: K }): Partial<TurnDetailsByKind[K]>;
export function turnDetails(t: TurnLike): Partial<AgentTurnDetails>;
export function turnDetails(t: TurnLike): Obj {
  return t.details ?? {};
}

/** The details a change records as one JSON object (its trigger's keys and any a newer release added). */
export const changeFacts = (c: ChangeLike): Obj => ({ ...(c.details ?? {}) });

// --- Status changes.

type Landing = { trigger: string; status: Status; set_aside: boolean; actor: string; details: Bag };

/**
 * The last accept: the latest move into complete a merge did not set aside, with the commit it
 * landed (null when it merged nothing or recorded none), its target, and who accepted: the actor
 * of the accept that began the merge (a recovered accept is completed by the system actor).
 * Invariant: "the last accept's commit" is computed here only.
 */
export function lastAccept<C extends Landing>(v: {
  changelog: readonly C[];
}): { entry: C; commit: string | null; target: string | null; actor: string } | null {
  const live = v.changelog.filter((c) => !c.set_aside);
  const done = live.filter((c) => c.status === 'complete').at(-1);
  if (!done) return null;
  const began = live
    .slice(0, live.indexOf(done))
    .filter((c) => c.status === 'merging' && c.trigger === 'accept')
    .at(-1);
  const d = done.details ?? {};
  return { entry: done, commit: str(d.commit), target: str(d.target), actor: began?.actor ?? done.actor };
}

/** The commit the last accept landed, or null. */
export const acceptedCommit = (v: { changelog: readonly Landing[] }): string | null => lastAccept(v)?.commit ?? null;

/** What a merging entry (accept's first step) recorded: the target, its tip before, where a rollback returns. */
export function mergingOf(c: ChangeLike | null | undefined): {
  target: string | null;
  target_old: string | null;
  restore: string | null;
} {
  const d = c?.details ?? {};
  return { target: str(d.target), target_old: str(d.target_old), restore: str(d.restore) };
}

/** What a merge_abort recorded: the after-kill rule and the squash commit a killed move may still land. */
export function abortOf(c: ChangeLike): { if_killed: string | null; squash: string | null } {
  const d = c.details ?? {};
  return { if_killed: str(d.if_killed), squash: str(d.squash) };
}

/** What a move into complete recorded of the merge: its commit and the branch head it took. */
export function landedOf(c: ChangeLike | null | undefined): { commit: string | null; head: string | null } {
  const d = c?.details ?? {};
  return { commit: str(d.commit), head: str(d.head) };
}

/** A submit entry's record (fields unchecked: lib/workspace/submission.ts validates them). */
export function submitOf(c: ChangeLike): {
  remote: Json | undefined;
  target: Json | undefined;
  head: Json | undefined;
  target_tip: Json | undefined;
} {
  const d = c.details ?? {};
  return { remote: d.remote, target: d.target, head: d.head, target_tip: d.target_tip };
}

/** The run a fleet takeover found with an expired lease, or null on any other entry. */
export const leaseExpiredRun = (c: ChangeLike): string | null => str(obj(obj(c.details ?? {})?.lease_expired)?.run);

/** How an interrupted turn ended, as its move into interrupted recorded it. */
export function interruptOf(c: ChangeLike | null | undefined): { exit_code: number | null; signal: string | null } {
  const d = c?.details ?? {};
  return { exit_code: typeof d.exit_code === 'number' ? d.exit_code : null, signal: str(d.signal) };
}

// --- Turns.

/** The review package a turn recorded, when its head is a full commit id (details may be pulled: only those reach git argv). */
export function reviewOf(t: TurnLike): ReviewDetails | null {
  const review = obj(t.details?.review);
  return review && typeof review.head === 'string' && /^[0-9a-f]{40}$/.test(review.head)
    ? (review as ReviewDetails)
    : null;
}

/** The run kind an agent turn recorded ('ask' for a question to the agent). */
export const turnMode = (t: TurnLike): string | null => str(t.details?.mode);

/** The agent (its configured name, or `shell` for a follow-up's command) an agent turn's run used. */
export const turnAgentOf = (t: TurnLike | null | undefined): string | null => str(t?.details?.agent);

/** How an agent turn's run ended (its exit code and signal), when it recorded them. */
export function turnEndOf(t: TurnLike | null | undefined): { exit_code: number | null; signal: string | null } {
  const d = t?.details ?? {};
  return { exit_code: typeof d.exit_code === 'number' ? d.exit_code : null, signal: str(d.signal) };
}

/**
 * The details a round's end (round_end) carries over, verbatim, from the move that had left the task where the round
 * found it: what the task shows of that move (an interruption's diagnostics) stays as it was.
 */
export const carriedDetails = (c: ChangeLike | null | undefined): Bag => c?.details ?? null;

/** The failure class an agent turn recorded. */
export const failureClassOf = (t: TurnLike | null | undefined): string | null => str(t?.details?.failure_class);

/** What `lazy usage` reads of an agent turn: its agent, model, reported cost and the seconds it waited on a subtask. */
export const spentOf = (t: { details?: Bag | null }) => {
  const d = t.details;
  const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : null);
  return {
    agent: str(d?.agent),
    model: str(d?.model),
    cost_usd: n(d?.cost_usd),
    waited_seconds: n(d?.waited_seconds) ?? 0,
  };
};

/** The agent's own session id an agent turn reported. */
export const agentSessionOf = (t: TurnLike): string | null => str(t.details?.agent_session_id);

/** The note an ask's answer left about the files it set aside. */
export const setAsideNote = (t: TurnLike | null | undefined): string | null => str(obj(t?.details?.set_aside)?.note);

/** The risks an agent turn reported. */
export function risksOf(t: TurnLike): string[] {
  const r = t.details?.risks;
  return Array.isArray(r) ? (r as string[]) : [];
}

/** The commands an agent turn reported running. */
export function commandsOf(t: TurnLike): { command: string; exit_code: number | null }[] {
  const c = t.details?.commands;
  return Array.isArray(c) ? (c as { command: string; exit_code: number | null }[]) : [];
}

/** What a command turn (lazy run) recorded, or null on any other turn or a record that lacks its command. */
export function commandRunOf(t: TurnLike): CommandDetails | null {
  const d = t.details;
  if (t.kind !== 'command' || !d || typeof d.command !== 'string') return null;
  const num = (x: Json | undefined) => (typeof x === 'number' ? x : null);
  return {
    command: d.command,
    exit_code: num(d.exit_code),
    signal: str(d.signal),
    duration_ms: num(d.duration_ms) ?? 0,
    head: str(d.head) ?? '',
    output_tail: str(d.output_tail) ?? '',
    output_bytes: num(d.output_bytes) ?? 0,
  };
}
