import type { Json } from '../core/json.js';
import type { Actor, Person } from '../core/actor.js';
import type { Status } from './status.js';
import type { Trigger } from './triggers.js';

// The YAML documents in a task's tree. Mutable documents (task, sessions) carry the
// Lamport clock of their last write; entries are append-only files named
// `<clock>-<id>.yaml` so a merge of two histories is the union of their files.

/** Total order of entries: Lamport clock, ties broken by entry id. Never wall-clock time. */
export function byClock(a: { clock: number; id: string }, b: { clock: number; id: string }): number {
  return a.clock - b.clock || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

export interface TaskDoc {
  id: string;
  goal: string;
  prompt: string | null;
  acceptance: string[];
  tags: string[];
  parent: string | null;
  agent: string | null;
  /** The model its turns run with (create|start|edit --model); absent: agents.<name>.model, else the CLI's default. */
  model?: string;
  /** This task's own budget (lazy unblock --budget/--budget-usd): overrides budget.task_tokens/task_cost_usd. */
  budget?: { tokens?: number; cost_usd?: number };
  /** The branch the task was created from; a root task's work merges back into it. */
  base: string | null;
  created_at: string;
  created_by: { actor: Actor } & Person;
  clock: number;
}

export interface SessionDoc {
  id: string;
  agent: string;
  branch: string;
  /** Branch this session's work stacks on: the parent task's branch or the task's base. */
  base: string;
  base_commit: string;
  started_at: string;
  ended_at: string | null;
  outcome: 'accepted' | 'rejected' | 'closed' | null;
  clock: number;
}

interface EntryBase {
  id: string;
  clock: number;
  timestamp: string;
  actor: Actor;
  person?: Person;
}

export type TurnRole = 'human' | 'agent' | 'system';
export type TurnKind =
  | 'prompt'
  | 'feedback'
  | 'answer'
  | 'question'
  | 'comment'
  | 'resume'
  | 'pair'
  | 'result'
  | 'error'
  | 'submission'
  | 'command';

export interface TurnEntry extends EntryBase {
  role: TurnRole;
  kind: TurnKind;
  content: string;
  /** Present on turns whose content must reach the agent; consumption is recorded by the consuming turn. */
  feedback?: 'pending';
  session?: string;
  run?: string;
  /** On a completed agent turn: the feedback turns it consumed. */
  consumes?: string[];
  /** The facts the turn records, typed by its kind: read through lib/model/details.ts only. */
  details?: { [k: string]: Json };
}

export interface StatusEntry extends EntryBase {
  from: Status | null;
  to: Status;
  trigger: Trigger | 'create';
  reason: string;
  host?: string;
  /** The clone the move was made in (lib/core/place.ts), recorded with every host. */
  clone?: string;
  run?: string;
  /** The facts the change records, typed by its trigger: read through lib/model/details.ts only. */
  details?: { [k: string]: Json };
}

/** A turn's commits touched a protected path; pending until a human decides. */
export interface ViolationEntry extends EntryBase {
  file: string;
  pattern?: string;
  run: string;
  commit: string;
  /** The task branch before the run; a revert restores the file from here. */
  base: string;
}

/** An explicit approve/revert of one protected file; sticky once made. */
export interface DecisionEntry extends EntryBase {
  file: string;
  decision: 'approve' | 'revert';
  /** The commit that restored the file, for a revert. */
  commit?: string;
}

export type EntryKind = 'turns' | 'changelog' | 'violations' | 'decisions';

/** Everything read from one task ref, validated. */
export interface TaskDocs {
  id: string;
  /** Commit the ref pointed at when read: the expected old value for the next write. */
  tip: string;
  task: TaskDoc;
  sessions: SessionDoc[];
  turns: TurnEntry[];
  changelog: StatusEntry[];
  violations: ViolationEntry[];
  decisions: DecisionEntry[];
}
