import type { Status } from './status.js';
import { lastChange, type ChangeView, type TurnView } from './views.js';
import { reviewOf } from './details.js';

// Follow-ups and repairs: status-neutral rounds of work on a task that rests (complete or abandoned: a follow-up;
// blocked or interrupted: a repair). Each is one run, started by its move into working (trigger follow_up or
// repair) and ended by round_end back to the status it came from. Their numbers are derived from the changelog
// (the nth move of that kind), never stored as a counter.

export type RoundKind = 'follow_up' | 'repair';

export interface Round {
  kind: RoundKind;
  /** 1 for the task's first round of this kind. */
  n: number;
  run: string;
  /** The status the round found the task in, and returns it to. */
  from: Status;
  started: ChangeView;
  /** round_end (null while the round runs). */
  ended: ChangeView | null;
  /** The agent's (or the command's) recorded turn, once recorded. */
  result: TurnView | null;
}

export const isRound = (trigger: string): trigger is RoundKind => trigger === 'follow_up' || trigger === 'repair';

/** "follow-up 2", "repair 1": how show, log and the changelog name a round. */
export const roundLabel = (kind: RoundKind, n: number) => `${kind === 'follow_up' ? 'follow-up' : 'repair'} ${n}`;

/** The task's rounds, oldest first. */
export function roundsOf(v: { changelog: readonly ChangeView[]; turns: readonly TurnView[] }): Round[] {
  const count = { follow_up: 0, repair: 0 };
  const out: Round[] = [];
  for (const c of v.changelog) {
    if (c.set_aside || !c.run || !isRound(c.trigger) || c.status !== 'working' || !c.from) continue;
    const run = c.run;
    out.push({
      kind: c.trigger,
      n: ++count[c.trigger],
      run,
      from: c.from,
      started: c,
      ended: v.changelog.find((e) => !e.set_aside && e.run === run && e.trigger === 'round_end') ?? null,
      result: v.turns.find((t) => t.run === run && t.role === 'agent') ?? null,
    });
  }
  return out;
}

/** The number the next round of this kind takes (the moves of that kind so far, plus one). */
export const nextRound = (v: { changelog: readonly ChangeView[] }, kind: RoundKind): number =>
  v.changelog.filter((c) => !c.set_aside && c.trigger === kind && c.status === 'working').length + 1;

/**
 * A round's start (its move into working) or its end (round_end): status-neutral work, which neither launches nor
 * settles the task. Every reader of what last happened to a task looks past them (lastSettled).
 */
export const isRoundMove = (c: Pick<ChangeView, 'trigger'>): boolean => isRound(c.trigger) || c.trigger === 'round_end';

/**
 * The last settled move (into `status`, when given): lastChange with every round's start and end skipped, so a
 * follow-up or a repair changes nothing a reader of "what left the task here" sees (what interrupted it, what
 * blocked it, whether a worker may resume it, why it is held).
 */
export function lastSettled(v: { changelog: readonly ChangeView[] }, status?: Status): ChangeView | undefined {
  return lastChange({ changelog: v.changelog.filter((c) => !isRoundMove(c)) }, status);
}

/**
 * The move that left the task where a round found it (before the round's move into working): a round returns
 * the task there with that move's details, so what the task shows (an interruption's diagnostics) is unchanged.
 */
export function leftBefore(changelog: readonly ChangeView[], run: string): ChangeView | null {
  const i = changelog.findIndex((c) => c.run === run && c.status === 'working' && isRound(c.trigger));
  return i < 0 ? null : (lastSettled({ changelog: changelog.slice(0, i) }) ?? null);
}

/** The commits a round left on the task branch that its target does not hold, as its recorded review counted them. */
export function roundCommits(r: Round): { head: string; commits: number } | null {
  const review = r.result ? reviewOf(r.result) : null;
  return review ? { head: review.head, commits: review.commits ?? 0 } : null;
}
