import type { Actor, Person } from '../core/actor.js';
import { randomId } from '../core/ids.js';
import { notAllowed } from '../core/errors.js';
import type {
  DecisionEntry,
  SessionDoc,
  StatusEntry,
  TaskDoc,
  TaskDocs,
  TurnEntry,
  TurnKind,
  ViolationEntry,
} from '../model/docs.js';
import { foldTask, maxClock, type TaskView } from '../model/fold.js';
import { canTransition, statusActions, type Trigger } from '../model/table.js';
import type { Status } from '../model/status.js';
import { type ChangeDetailsOf, type TurnDetailsOf } from '../model/details.js';
import { summaryLines } from './listing/summary.js';

// A draft collects one mutation: the entries it appends and the records it rewrites.
// Clocks are handed out in call order, so a mutation's own entries keep their order.

export interface Ctx {
  actor: Actor;
  person: Person;
  host: string;
  /** This clone's id: stamped beside every host a move records (lib/core/place.ts). */
  clone: string;
  now: string;
}

/** A turn to append; its details are typed by its kind (lib/model/details.ts). */
type TurnInput<K extends TurnKind = TurnKind> = Omit<
  TurnEntry,
  'id' | 'clock' | 'timestamp' | 'actor' | 'person' | 'kind' | 'details'
> & {
  kind: K;
  actor?: Actor;
  details?: TurnDetailsOf<K>;
};
/** What a status change records besides its move; its details are typed by its trigger. */
type ChangeExtra<T extends Trigger> = Partial<Pick<StatusEntry, 'run' | 'host' | 'clone'>> & {
  details?: ChangeDetailsOf<T>;
};

export class Draft {
  readonly turns: TurnEntry[] = [];
  readonly changes: StatusEntry[] = [];
  readonly violations: ViolationEntry[] = [];
  readonly decisions: DecisionEntry[] = [];
  readonly sessions = new Map<string, SessionDoc>();
  task: TaskDoc | undefined;
  op: string;
  summary: string | undefined;
  private clock: number;
  private current: Status;

  constructor(
    readonly docs: TaskDocs,
    readonly view: TaskView,
    readonly ctx: Ctx,
    op: string,
  ) {
    this.op = op;
    this.clock = maxClock(docs);
    this.current = view.status;
  }

  get status(): Status {
    return this.current;
  }
  get startStatus(): Status {
    return this.view.status;
  }

  private tick(): number {
    // Invariant: clocks are exact integers, so every entry's file name round-trips.
    if (!Number.isSafeInteger(this.clock + 1))
      throw new Error(`task ${this.docs.id}: Lamport clock ${this.clock} is out of range`);
    return ++this.clock;
  }

  private stamp(actor?: Actor) {
    return {
      id: randomId(),
      clock: this.tick(),
      timestamp: this.ctx.now,
      actor: actor ?? this.ctx.actor,
      person: this.ctx.person,
    };
  }

  turn<K extends TurnKind>(t: TurnInput<K>): TurnEntry {
    const { actor, ...rest } = t;
    const stamp = this.stamp(actor);
    // An agent's own reply is not a person's action: it carries no git identity.
    if (t.role === 'agent') delete (stamp as { person?: unknown }).person;
    const e: TurnEntry = { ...stamp, ...rest };
    this.turns.push(e);
    return e;
  }

  /** Appends a status change from the draft's current status; refuses (exit 4) what the table forbids. */
  transition<T extends Trigger>(
    to: Status,
    trigger: T,
    reason: string,
    extra: ChangeExtra<T> = {},
    actor?: Actor,
  ): StatusEntry {
    const who = actor ?? this.ctx.actor;
    if (!canTransition(this.current, to, trigger, who)) {
      throw notAllowed(
        trigger,
        this.current,
        this.current === this.view.status ? this.view.available_actions : statusActions(this.current),
        `cannot ${trigger.replace(/_/g, ' ')} a task that is ${this.current} (→ ${to} is not a valid transition)`,
      );
    }
    // A move that names its host names its clone: this one, unless the caller names another's (a takeover
    // records the dead worker's run where it ran).
    const { clone, ...rest } = extra;
    const place =
      'clone' in extra ? (clone ? { clone } : {}) : extra.host !== undefined ? { clone: this.ctx.clone } : {};
    const e: StatusEntry = { ...this.stamp(who), from: this.current, to, trigger, reason, ...rest, ...place };
    this.changes.push(e);
    this.current = to;
    return e;
  }

  violation(v: Omit<ViolationEntry, 'id' | 'clock' | 'timestamp' | 'actor' | 'person'>): ViolationEntry {
    const e: ViolationEntry = { ...this.stamp('system'), ...v };
    this.violations.push(e);
    return e;
  }

  decide(v: Omit<DecisionEntry, 'id' | 'clock' | 'timestamp' | 'actor' | 'person'>): DecisionEntry {
    const e: DecisionEntry = { ...this.stamp(), ...v };
    this.decisions.push(e);
    return e;
  }

  /** The first entry of every task: it enters backlog. */
  created(): StatusEntry {
    const e: StatusEntry = { ...this.stamp(), from: null, to: 'backlog', trigger: 'create', reason: 'created' };
    this.changes.push(e);
    this.current = 'backlog';
    return e;
  }

  setTask(patch: Partial<Omit<TaskDoc, 'id' | 'clock'>>): void {
    const base = this.task ?? this.docs.task;
    this.task = { ...base, ...patch, clock: this.tick() };
  }

  putSession(s: Omit<SessionDoc, 'clock'>): SessionDoc {
    const doc = { ...s, clock: this.tick() };
    this.sessions.set(doc.id, doc);
    return doc;
  }

  get empty(): boolean {
    return (
      !this.task &&
      this.sessions.size === 0 &&
      this.turns.length + this.changes.length + this.violations.length + this.decisions.length === 0
    );
  }

  /** The task as it will read after this draft is committed. */
  preview(): TaskView {
    const sessions = [...this.docs.sessions.filter((s) => !this.sessions.has(s.id)), ...this.sessions.values()];
    return foldTask({
      ...this.docs,
      task: this.task ?? this.docs.task,
      sessions,
      turns: [...this.docs.turns, ...this.turns],
      changelog: [...this.docs.changelog, ...this.changes],
      violations: [...this.docs.violations, ...this.violations],
      decisions: [...this.docs.decisions, ...this.decisions],
    });
  }

  /** The commit's message; `after`, the task as this draft leaves it (preview()), gives its summary trailers. */
  commitMessage(after: TaskView = this.preview()): string {
    const id = this.docs.id;
    const first = `lazy: ${this.op} ${id} (${this.ctx.actor})`;
    const body = this.summary ? `\n\n${this.summary}` : '';
    const trailers = [
      `Lazy-Task: ${id}`,
      `Lazy-Op: ${this.op}`,
      `Lazy-Actor: ${this.ctx.actor}`,
      `Lazy-Host: ${this.ctx.host}`,
    ];
    if (this.changes.length)
      trailers.push(`Lazy-Status: ${this.changes.map((c) => `${c.from ?? 'new'} -> ${c.to}`).join(', ')}`);
    trailers.push(`Lazy-Clock: ${this.clock}`, ...summaryLines(after));
    return `${first}${body}\n\n${trailers.join('\n')}\n`;
  }
}

/** The draft every task starts as: task.yaml at clock 1 and the backlog entry. */
export function creationDraft(
  id: string,
  fields: Omit<TaskDoc, 'id' | 'clock' | 'created_at' | 'created_by'>,
  ctx: Ctx,
): Draft {
  const task: TaskDoc = {
    id,
    ...fields,
    created_at: ctx.now,
    created_by: { actor: ctx.actor, ...ctx.person },
    clock: 1,
  };
  const docs: TaskDocs = { id, tip: '', task, sessions: [], turns: [], changelog: [], violations: [], decisions: [] };
  const draft = new Draft(docs, foldTask(docs), ctx, 'create');
  draft.summary = task.goal;
  draft.created();
  return draft;
}
