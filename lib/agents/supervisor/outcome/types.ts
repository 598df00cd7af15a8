import type { Usage } from '../../../model/usage.js';
import type { FailureClass } from '../../adapters/taxonomy.js';
import type { SetAside } from '../../../workspace/ask-snapshot.js';
import type { ReviewDetails } from '../../../model/details.js';

// What a run ended with, written once to the run directory before it is recorded in
// the task ref, so whoever records it (the supervisor or a later reconcile) records
// the same thing exactly once.

export type OutcomeKind = 'completed' | 'decision_required' | 'blocked' | 'failed' | 'interrupted';

/** The review package a turn records (its stored shape is the model's). */
export type Review = ReviewDetails;

export interface Outcome {
  run: string;
  task: string;
  kind: OutcomeKind;
  ended_at: string;
  attempts: number;
  summary: string;
  question?: string;
  risks?: string[];
  /** What the agent ran (its report), or follow-up --command's one command with the tail of its output. */
  commands?: { command: string; exit_code: number | null; output?: string }[];
  failure?: { class: FailureClass; reason: string };
  interrupt?: {
    reason: string;
    exit_code: number | null;
    signal: string | null;
    logs: string[];
    at: string;
    user_stopped?: boolean;
    /** A fleet run whose claim could not be kept (its lease not renewed in time): resumable, and no crash. */
    claim_unkept?: boolean;
    /** A fleet run's usage limit: the turn ended so the task waits in the queue until this reset (ISO). */
    not_before?: string;
  };
  agent_session_id?: string;
  /** The turn's usage as its agent reported it (claude). */
  usage?: Usage;
  /** The agent thread's usage so far (codex): the recorded turn takes the difference from the last one. */
  usage_cumulative?: Usage;
  cost_usd?: number;
  /** Seconds the run spent waiting on subtasks (lazy_wait, lazy_ask): not the agent's time. */
  waited_seconds?: number;
  review?: Review;
  /** Protected files this run's commits touched. */
  violations?: { file: string; commit: string; base: string }[];
  upstream?: { status: string; detail: string; files: string[] };
  /** What an ask left in the worktree, set aside (never committed). */
  set_aside?: SetAside;
}

/** The fields every outcome of one attempt shares, whatever its kind. */
export type OutcomeCommon = Pick<
  Outcome,
  | 'run'
  | 'task'
  | 'ended_at'
  | 'attempts'
  | 'agent_session_id'
  | 'usage'
  | 'usage_cumulative'
  | 'cost_usd'
  | 'waited_seconds'
  | 'upstream'
>;
