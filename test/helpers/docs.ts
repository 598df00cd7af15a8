import type { Actor } from '../../lib/core/actor.js';
import type { DecisionEntry, StatusEntry, TaskDocs, TurnEntry, ViolationEntry } from '../../lib/model/docs.js';
import { foldTask, type TaskView } from '../../lib/model/fold.js';
import type { Status } from '../../lib/model/status.js';
import type { Trigger } from '../../lib/model/table.js';

// Builders for task documents held in memory, for the unit tests of pure policies: a
// history is written as a list of short rows, folded exactly as the store folds it.

export const TS = (clock: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, clock)).toISOString();
const id8 = (clock: number, salt = 'e') => `${salt}${String(clock).padStart(7, '0')}`;

/** A status entry: `from → to` on `trigger` at `clock` (actor: system for zombie, else human). */
export function change(
  clock: number,
  from: Status | null,
  to: Status,
  trigger: Trigger | 'create',
  more: Partial<StatusEntry> = {},
): StatusEntry {
  const actor: Actor = to === 'zombie' ? 'system' : 'human';
  return { id: id8(clock, 'c'), clock, timestamp: TS(clock), actor, from, to, trigger, reason: trigger, ...more };
}

/** A changelog walking `statuses` in order, each move on the trigger given beside it. */
export function walk(...steps: [Status, Trigger][]): StatusEntry[] {
  const out = [change(1, null, 'backlog', 'create')];
  let from: Status = 'backlog';
  steps.forEach(([to, trigger], i) => {
    out.push(change(i + 2, from, to, trigger));
    from = to;
  });
  return out;
}

export function turn(clock: number, role: TurnEntry['role'], kind: TurnEntry['kind'], more: Partial<TurnEntry> = {}) {
  const t: TurnEntry = {
    id: id8(clock, 't'),
    clock,
    timestamp: TS(clock),
    actor: role === 'agent' ? 'agent' : 'human',
    role,
    kind,
    content: `${role} ${kind} at ${clock}`,
    ...more,
  };
  return t;
}

export function violation(clock: number, file: string, more: Partial<ViolationEntry> = {}): ViolationEntry {
  return {
    id: id8(clock, 'v'),
    clock,
    timestamp: TS(clock),
    actor: 'system',
    file,
    run: 'run00001',
    commit: 'c'.repeat(40),
    base: 'b'.repeat(40),
    ...more,
  };
}

export function decision(clock: number, file: string, d: 'approve' | 'revert'): DecisionEntry {
  return { id: id8(clock, 'd'), clock, timestamp: TS(clock), actor: 'human', file, decision: d };
}

/** A whole task's documents; only the lists a case names differ from an empty backlog task. */
export function docs(more: Partial<TaskDocs> = {}): TaskDocs {
  return {
    id: 'task0001',
    tip: 'f'.repeat(40),
    task: {
      id: 'task0001',
      goal: 'a goal',
      prompt: null,
      acceptance: [],
      tags: [],
      parent: null,
      agent: null,
      base: 'main',
      created_at: TS(1),
      created_by: { actor: 'human', name: 'T', email: 't@example.com' },
      clock: 1,
    },
    sessions: [],
    turns: [],
    changelog: [change(1, null, 'backlog', 'create')],
    violations: [],
    decisions: [],
    ...more,
  };
}

export const view = (more: Partial<TaskDocs> = {}): TaskView => foldTask(docs(more));

/** A review detail a work turn carries when it left the branch in front of a person. */
export const REVIEW = { review: { head: 'a'.repeat(40) } };
