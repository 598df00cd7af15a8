import { categoryOf, type Category, type Status } from './status.js';
import { availableActions, canTransition, type Action } from './table.js';
import { attentionOf, type Attention } from './attention.js';
import type { ChangeView, PendingViolation, TurnView } from './views.js';
import {
  byClock,
  type DecisionEntry,
  type SessionDoc,
  type StatusEntry,
  type TaskDoc,
  type TaskDocs,
  type ViolationEntry,
} from './docs.js';
import type { Json } from '../core/json.js';
import { submissionOf, type Submission } from './submission.js';
import { isNeutral, scheduleOf, type Schedule } from './schedule.js';
import { heldFromWorkers } from './pickup.js';
import { reviewedHead } from './review.js';

export type { ChangeView, PendingViolation, TurnView } from './views.js';
export { lastChange } from './views.js';

// Derived state: status, sequence numbers, pending feedback and counters are computed
// from the append-only entries on every read, never stored.

export interface Replay {
  status: Status | null;
  applied: StatusEntry[];
  /** Entries the merged history no longer allows (a concurrent, conflicting change). */
  setAside: StatusEntry[];
}

/** Replays the changelog through the transition table; an entry applies only from the status it left. */
export function replayStatus(changelog: readonly StatusEntry[]): Replay {
  let status: Status | null = null;
  const applied: StatusEntry[] = [];
  const setAside: StatusEntry[] = [];
  const lost = lostRuns(changelog);
  for (const e of [...changelog].sort(byClock)) {
    const ok =
      status === null
        ? e.from === null && e.trigger === 'create' && e.to === 'backlog'
        : e.from === status &&
          e.trigger !== 'create' &&
          canTransition(status, e.to, e.trigger, e.actor) &&
          !(e.from === 'working' && e.run && lost.has(e.run) && !e.details?.lease_expired);
    if (ok) {
      status = e.to;
      applied.push(e);
    } else setAside.push(e);
  }
  return { status, applied, setAside };
}

/**
 * Runs another worker took over when their lease expired. Invariant (fencing): such a run's own
 * outcome never applies, whatever its clock, so a dead worker that comes back cannot land a second outcome.
 */
function lostRuns(changelog: readonly StatusEntry[]): Set<string> {
  const lost = new Set<string>();
  for (const e of changelog) {
    const l = e.details?.lease_expired;
    if (l && typeof l === 'object' && !Array.isArray(l) && typeof l.run === 'string') lost.add(l.run);
  }
  return lost;
}

/** Crashes in a row since the last completed turn or human intervention (the circuit breaker's input). */
export function consecutiveInterruptions(applied: readonly StatusEntry[]): number {
  let n = 0;
  let unkept = 0;
  for (const e of applied) {
    // A claim its live worker could not keep (lib/fleet/keeper.ts) is no crash of the task's, once: one that keeps
    // happening (a remote that refuses every renewal) counts from the second, so the breaker still ends the cycle.
    if (e.to === 'interrupted' && e.trigger === 'turn_crashed') {
      if (!e.details?.claim_unkept || ++unkept > 1) n++;
    } else if (
      e.trigger === 'turn_complete' ||
      e.trigger === 'resume' ||
      e.trigger === 'unblock' ||
      e.trigger === 'answer' ||
      e.trigger === 'queue' // a person sending a crashed task back to the fleet, as resume does here
    ) {
      n = 0;
      unkept = 0;
    }
  }
  return n;
}

export interface TaskView extends Omit<TaskDoc, 'clock' | 'model'> {
  /** The task's own model, null when it names none (its agent's configured model, else the CLI's default, applies). */
  model: string | null;
  status: Status;
  category: Category | null;
  available_actions: Action[];
  tip: string;
  clock: number;
  updated_at: string;
  session: SessionDoc | null;
  sessions: SessionDoc[];
  consecutive_interruptions: number;
  /** Requests for changes so far: each unblock with feedback is one. */
  revisions: number;
  pending_feedback: string[];
  /** What a human must do about the task, when anything; derived, never stored. */
  attention: Attention | null;
  /** Protected files a turn touched that still wait for an approve/revert decision. */
  pending_violations: PendingViolation[];
  /** Who runs the accept of a task in merging (host and process), for stranded-merge checks. */
  merging_owner: { [k: string]: Json } | null;
  /** The run the latest move into working launched (what an outcome must match). */
  current_run: string | null;
  /** The branch head the latest review recorded (a revert decision after it moves it): what accept and submit land. */
  reviewed_head: string | null;
  /** The agent's own session id, as the latest agent turn reported it (resume target). */
  agent_session_id: string | null;
  /** Status changes a concurrent edit on another clone made that the merged history set aside. */
  concurrent_changes: ChangeView[];
  /** The latest hand-off to a forge (lazy submit): pushed branch, PR address or the PR command's failure. */
  submission: Submission | null;
  /** Where the task stands in the fleet's queue (queued, priority, paused, a usage-limit wait, a worker's claim). */
  schedule: Schedule;
  turns: TurnView[];
  changelog: ChangeView[];
}

const changeView = (e: StatusEntry, setAside: boolean): ChangeView => ({
  id: e.id,
  clock: e.clock,
  status: e.to,
  from: e.from,
  trigger: e.trigger,
  actor: e.actor,
  person: e.person ?? null,
  timestamp: e.timestamp,
  reason: e.reason,
  host: e.host ?? null,
  clone: e.clone ?? null,
  run: e.run ?? null,
  details: e.details ?? null,
  set_aside: setAside,
});

export function maxClock(docs: Omit<TaskDocs, 'id' | 'tip'>): number {
  let m = docs.task.clock;
  for (const list of [docs.sessions, docs.turns, docs.changelog, docs.violations, docs.decisions])
    for (const d of list) if (d.clock > m) m = d.clock;
  return m;
}

export function foldTask(docs: TaskDocs): TaskView {
  const replay = replayStatus(docs.changelog);
  // Invariant: a stored task always has its creation entry, so status is never null here
  // (the store rejects documents that break it before they reach the fold).
  const status = replay.status ?? 'backlog';
  const aside = new Set(replay.setAside.map((e) => e.id));
  const consumed = new Set(docs.turns.flatMap((t) => t.consumes ?? []));
  const turns = [...docs.turns].sort(byClock).map((t, i): TurnView => ({
    sequence: i + 1,
    id: t.id,
    clock: t.clock,
    role: t.role,
    kind: t.kind,
    actor: t.actor,
    person: t.person ?? null,
    content: t.content,
    timestamp: t.timestamp,
    feedback: t.feedback ? (consumed.has(t.id) ? 'consumed' : 'pending') : null,
    session: t.session ?? null,
    run: t.run ?? null,
    details: t.details ?? null,
  }));
  const changelog = [...docs.changelog].sort(byClock).map((e) => changeView(e, aside.has(e.id)));
  const sessions = [...docs.sessions].sort(byClock);
  const open = sessions.filter((s) => s.ended_at === null);
  // Two clones may start a task concurrently: the session in use is the one the latest
  // applied run belongs to, not merely the newest one.
  const lastRun = [...replay.applied].reverse().find((e) => e.run)?.run;
  const runSession = lastRun ? docs.turns.find((t) => t.run === lastRun && t.session)?.session : undefined;
  const last = [...changelog, ...turns].sort(byClock).at(-1);
  const { clock: _clock, ...task } = docs.task;
  const crashes = consecutiveInterruptions(replay.applied);
  const view: TaskView = {
    ...task,
    model: task.model ?? null,
    status,
    category: categoryOf(status),
    available_actions: [], // set below: the guards read the rest of the view
    tip: docs.tip,
    clock: maxClock(docs),
    updated_at: last?.timestamp ?? docs.task.created_at,
    session: open.find((x) => x.id === runSession) ?? open.at(-1) ?? null,
    sessions,
    consecutive_interruptions: crashes,
    attention: attentionOf(
      status,
      changelog.filter((c) => !c.set_aside && !isNeutral(c)),
      turns,
      crashes,
    ),
    revisions: turns.filter((t) => t.kind === 'feedback').length,
    pending_feedback: turns.filter((t) => t.feedback === 'pending').map((t) => t.id),
    pending_violations: pendingViolations(docs),
    merging_owner:
      status === 'merging' ? ((replay.applied.at(-1)?.details?.owner ?? null) as { [k: string]: Json } | null) : null,
    current_run: [...replay.applied].reverse().find((e) => e.to === 'working')?.run ?? null,
    reviewed_head: reviewedHead(docs)?.head ?? null,
    agent_session_id: latestSessionId(turns),
    concurrent_changes: changelog.filter((c) => c.set_aside),
    submission: submissionOf(turns),
    schedule: scheduleOf(changelog),
    turns,
    changelog,
  };
  view.available_actions = availableActions(view);
  view.schedule.held = heldFromWorkers(view);
  return view;
}

/** A file is pending while its latest violation has no decision after it; decisions are sticky. */
export function pendingViolations(docs: Pick<TaskDocs, 'violations' | 'decisions'>): PendingViolation[] {
  const out: PendingViolation[] = [];
  for (const { v, decision } of latestViolations(docs).values()) {
    if (!decision) out.push({ file: v.file, run: v.run, commit: v.commit, base: v.base, since: v.timestamp });
  }
  return out.sort((a, b) => (a.file < b.file ? -1 : 1));
}

/**
 * Where each flagged file stands: `covered` is a commit holding the content that is
 * pending or was decided (a change away from it is a new violation), `restore` what a
 * revert of such a new change puts back.
 */
export interface ProtectedPoint {
  pending: boolean;
  covered: string;
  restore: string;
}

export function protectedPoints(docs: Pick<TaskDocs, 'violations' | 'decisions'>): Map<string, ProtectedPoint> {
  const out = new Map<string, ProtectedPoint>();
  for (const [file, { v, decision }] of latestViolations(docs)) {
    if (!decision) out.set(file, { pending: true, covered: v.commit, restore: v.base });
    else if (decision.decision === 'approve') out.set(file, { pending: false, covered: v.commit, restore: v.commit });
    else out.set(file, { pending: false, covered: v.base, restore: v.base });
  }
  return out;
}

/** Each file's latest violation and the latest decision after it, if any. */
function latestViolations(
  docs: Pick<TaskDocs, 'violations' | 'decisions'>,
): Map<string, { v: ViolationEntry; decision: DecisionEntry | undefined }> {
  const latest = new Map<string, { v: ViolationEntry; decision: DecisionEntry | undefined }>();
  for (const v of [...docs.violations].sort(byClock)) latest.set(v.file, { v, decision: undefined });
  for (const d of [...docs.decisions].sort(byClock)) {
    const e = latest.get(d.file);
    if (e && byClock(d, e.v) > 0) e.decision = d;
  }
  return latest;
}

function latestSessionId(turns: TurnView[]): string | null {
  for (let i = turns.length - 1; i >= 0; i--) {
    const sid = turns[i]!.details?.agent_session_id;
    if (typeof sid === 'string') return sid;
  }
  return null;
}
